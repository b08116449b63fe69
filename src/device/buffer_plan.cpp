#include "device/buffer_plan.hpp"

namespace kprof {

size_t BufferPlan::total_bytes() const {
  size_t t = 0;
  for (const auto& b : buffers) t += b.bytes();
  return t;
}

size_t BufferPlan::largest() const {
  size_t best = 0;
  for (size_t i = 1; i < buffers.size(); ++i)
    if (buffers[i].bytes() > buffers[best].bytes()) best = i;
  return best;
}

const BufferSpec* BufferPlan::find(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace kprof
