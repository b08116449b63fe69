#include "stages/timing/input_sets.hpp"

#include <fmt/format.h>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "device/cuda.hpp"

namespace kprof {

bool InputSets::snapshot(const std::vector<BufferView>& views, bool outputs_only, std::vector<Copy>& out) {
  out.clear();
  for (size_t b = 0; b < views.size(); ++b) {
    const auto& v = views[b];
    if ((outputs_only && !v.is_output) || v.ptr == nullptr || v.count == 0) continue;
    Copy c;
    c.name = v.name;
    c.dst = v.ptr;
    c.bytes = v.count * dtype_size(v.dtype);
    auto saved = DeviceArray::try_allocate(c.bytes);
    if (!saved) {
      out.clear();
      return false;
    }
    c.saved = std::move(*saved);
    cuda_check(cudaMemcpy(c.saved.get(), v.ptr, c.bytes, cudaMemcpyDeviceToDevice),
               "saving '" + v.name + "' before timing");
    out.push_back(std::move(c));
  }
  return true;
}

InputSets::InputSets(KernelInstance& inst, uint64_t seed, int wanted, bool prepare_base, bool restore_outputs)
    : inst_(inst) {
  if (!restore_outputs) {
    if (prepare_base) inst.prepare(seed);
    note_ = "outputs not restored between calls (disabled): each call sees what the previous one left";
    return;
  }
  std::vector<std::vector<Copy>> others;  // sets 1.. in seed order
  std::vector<uint64_t> other_seeds;
  for (int k = wanted - 1; k >= 1; --k) {
    inst.prepare(seed + static_cast<uint64_t>(k));
    cuda_check(cudaDeviceSynchronize(), "preparing input set " + std::to_string(k));
    std::vector<Copy> set;
    if (!snapshot(inst.buffers(), false, set)) {
      others.clear();
      other_seeds.clear();
      note_ = fmt::format(
          "timed on one input set: no device memory for {} more copies of the buffers (a kernel that memoizes "
          "its output on its inputs is not caught)",
          wanted - 1);
      break;
    }
    others.insert(others.begin(), std::move(set));
    other_seeds.insert(other_seeds.begin(), seed + static_cast<uint64_t>(k));
  }
  if (prepare_base || !others.empty()) inst.prepare(seed);
  cuda_check(cudaDeviceSynchronize(), "preparing input set 0");
  std::vector<Copy> base;
  // With other sets in the rotation set 0 keeps its inputs too (restoring set 1 overwrites them).
  if (!snapshot(inst.buffers(), others.empty(), base)) {
    note_ =
        "outputs not restored between calls: no device memory for a copy of them (an in-place kernel sees its "
        "previous outputs as inputs)";
    return;
  }
  sets_.push_back(std::move(base));
  seeds_.push_back(seed);
  for (size_t k = 0; k < others.size(); ++k) {
    sets_.push_back(std::move(others[k]));
    seeds_.push_back(other_seeds[k]);
  }
}

void InputSets::restore(int k, cudaStream_t stream) const {
  if (sets_.empty()) return;
  for (const auto& c : sets_.at(static_cast<size_t>(k)))
    cuda_check(cudaMemcpyAsync(c.dst, c.saved.get(), c.bytes, cudaMemcpyDeviceToDevice, stream),
               "restoring '" + c.name + "' between timed calls");
}

std::vector<std::string> InputSets::restored_names() const {
  std::vector<std::string> out;
  if (sets_.empty()) return out;
  const auto views = inst_.buffers();
  for (const auto& c : sets_.front())
    for (const auto& v : views)
      if (v.ptr == c.dst && v.is_output) out.push_back(c.name);
  return out;
}

}  // namespace kprof
