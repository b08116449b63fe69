// The input sets the timed calls rotate over: device copies of every buffer (inputs and outputs)
// as KernelInstance::prepare(seed + k) left them, restored into the kernel's buffers before each
// call (outside the timed window). Rotation keeps a kernel that memoizes its output on an input
// fingerprint from serving a call with the previous call's answer; with one set it is the plain
// restore of the outputs that keeps in-place kernels on the same inputs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device/buffer_view.hpp"
#include "device/device_array.hpp"
#include "kernel/kernel_instance.hpp"

namespace kprof {

class InputSets {
 public:
  /// Prepares `inst` with seeds seed + k for k = wanted - 1 down to 1, copying every buffer after
  /// each, then prepares seed (set 0) last (when `prepare_base`; else the current buffers are set
  /// 0), so the kernel's buffers hold set 0 on return. With one set only the outputs are copied
  /// (the inputs stay as the buffers hold them; a kernel that writes a const input fails the check).
  /// Uses fewer sets when device memory is short (note() says so). `restore_outputs` false: no
  /// copies at all (every call sees what the previous one left). Throws Error (exit 1) when a copy
  /// fails.
  InputSets(KernelInstance& inst, uint64_t seed, int wanted, bool prepare_base, bool restore_outputs);
  InputSets(const InputSets&) = delete;
  InputSets& operator=(const InputSets&) = delete;

  /// Enqueues the copies of set `k` (0 <= k < sets()) into the kernel's buffers on `stream`.
  /// Throws Error (exit 1) when a copy cannot be enqueued.
  void restore(int k, cudaStream_t stream) const;

  int sets() const { return static_cast<int>(sets_.size()); }
  uint64_t seed(int k) const { return seeds_.at(static_cast<size_t>(k)); }
  const std::vector<uint64_t>& seeds() const { return seeds_; }
  /// Names of the output buffers restored before every call.
  std::vector<std::string> restored_names() const;
  const std::string& note() const { return note_; }

 private:
  struct Copy {
    std::string name;
    void* dst = nullptr;  ///< the kernel's buffer (fixed once the last prepare() ran)
    size_t bytes = 0;
    DeviceArray saved;
  };
  /// Copies the buffers (all, or only outputs) into fresh device memory; false when memory ran out.
  bool snapshot(const std::vector<BufferView>& views, bool outputs_only, std::vector<Copy>& out);

  KernelInstance& inst_;
  std::vector<std::vector<Copy>> sets_;
  std::vector<uint64_t> seeds_;
  std::string note_;
};

}  // namespace kprof
