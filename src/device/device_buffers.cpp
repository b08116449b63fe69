#include "device/device_buffers.hpp"

#include <algorithm>
#include <cmath>

#include "device/device_array.hpp"
#include "device/fill.hpp"
#include "device/guard.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {

MemoryNeed memory_need(const BufferPlan& plan, double extra_copies) {
  MemoryNeed m;
  m.buffers = plan.total_bytes();
  m.guards = 2 * kGuardBytes * plan.buffers.size();
  m.copies = static_cast<size_t>(std::ceil(std::max(0.0, extra_copies) * static_cast<double>(m.buffers)));
  return m;
}

void check_fits(const BufferPlan& plan, double extra_copies, size_t free_bytes) {
  MemoryNeed m = memory_need(plan, extra_copies);
  if (m.total() <= free_bytes) return;
  auto b = [](size_t n) { return fmt_bytes(static_cast<double>(n)); };
  std::string msg = "the buffers do not fit in GPU memory: kprof needs " + b(m.total()) + " (buffers " + b(m.buffers) +
                    " + guard zones " + b(m.guards) + " + " + fmt_sig(extra_copies, 3) + " working copies " +
                    b(m.copies) + " + reserve " + b(m.reserve) + "), " + b(free_bytes) + " is free";
  std::string hint = "use smaller dimensions, --ptr-size N, or --size NAME=EXPR";
  if (!plan.buffers.empty()) {
    const BufferSpec& big = plan.buffers[plan.largest()];
    msg += "; the largest buffer is '" + big.name + "' (" + dtype_name(big.dtype) + ", " + std::to_string(big.count) +
           " elements, " + b(big.bytes()) + ", size from " + big.count_source + ")";
    hint =
        "use smaller dimensions, --ptr-size N, or --size " + big.name + "=EXPR to size '" + big.name + "' explicitly";
  }
  throw check_failed(msg, hint);
}

/// One allocation: [kGuardBytes | payload | kGuardBytes]; freed on destruction.
struct DeviceBuffers::Region {
  DeviceArray mem;
  size_t payload = 0;
  char* base() const { return static_cast<char*>(mem.get()); }
  char* data() const { return base() + kGuardBytes; }
  char* after() const { return base() + kGuardBytes + payload; }
};

DeviceBuffers::DeviceBuffers(BufferPlan plan, double extra_copies) : plan_(std::move(plan)) {
  size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  check_fits(plan_, extra_copies, free_b);
  for (const auto& spec : plan_.buffers) {
    auto r = std::make_unique<Region>();
    r->payload = spec.bytes();
    std::string error;
    auto mem = DeviceArray::try_allocate(r->payload + 2 * kGuardBytes, &error);
    if (!mem) {
      throw check_failed("cudaMalloc of buffer '" + spec.name + "' (" + fmt_bytes(static_cast<double>(r->payload)) +
                             ") failed: " + error,
                         "use smaller sizes (--ptr-size N, --size " + spec.name + "=EXPR) or free the GPU");
    }
    r->mem = std::move(*mem);
    regions_.push_back(std::move(r));
  }
  arm_guards();
}

DeviceBuffers::~DeviceBuffers() = default;

void* DeviceBuffers::data(size_t i) const { return regions_.at(i)->data(); }

std::vector<BufferView> DeviceBuffers::views() const {
  std::vector<BufferView> v;
  for (size_t i = 0; i < plan_.buffers.size(); ++i) {
    const auto& s = plan_.buffers[i];
    v.push_back(BufferView{
        s.name, s.dtype, s.count, regions_[i]->data(), s.is_output, {}, s.count_source.rfind("rule", 0) == 0});
  }
  return v;
}

void DeviceBuffers::fill_seeded(uint64_t seed) {
  for (size_t i = 0; i < plan_.buffers.size(); ++i) {
    const auto& s = plan_.buffers[i];
    kprof::fill_seeded(regions_[i]->data(), s.dtype, s.count, seed, static_cast<uint32_t>(i));
  }
  cuda_check(cudaDeviceSynchronize(), "filling the buffers with seeded data");
}

void DeviceBuffers::arm_guards() {
  static const std::vector<uint8_t> front = guard_pattern(false), back = guard_pattern(true);
  for (size_t i = 0; i < regions_.size(); ++i) {
    const auto& r = *regions_[i];
    const std::string what = "arming the guard zones of '" + plan_.buffers[i].name + "'";
    cuda_check(cudaMemcpy(r.base(), front.data(), kGuardBytes, cudaMemcpyHostToDevice), what);
    cuda_check(cudaMemcpy(r.after(), back.data(), kGuardBytes, cudaMemcpyHostToDevice), what);
  }
}

std::vector<GuardViolation> DeviceBuffers::check_guards() const {
  std::vector<GuardViolation> out;
  std::vector<uint8_t> zone(kGuardBytes);
  for (size_t i = 0; i < regions_.size(); ++i) {
    const auto& r = *regions_[i];
    const std::string& name = plan_.buffers[i].name;
    for (bool after : {false, true}) {
      cuda_check(cudaMemcpy(zone.data(), after ? r.after() : r.base(), kGuardBytes, cudaMemcpyDeviceToHost),
                 "reading the guard zones of '" + name + "'");
      if (auto v = scan_guard(name, r.payload, after, zone)) out.push_back(*v);
    }
  }
  return out;
}

}  // namespace kprof
