// kprof's one owner of device memory: every cudaMalloc of kprof (the kernel's buffers with their
// guard zones, the reference's input copies, timing's output snapshot and L2-flush scratch, the
// bandwidth copies, the env probe) is a DeviceArray, freed with it through device_free (which
// never waits on a stuck GPU: core's hard-exit flag).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kprof {

/// A plain device allocation of `bytes` (cudaMalloc), freed on destruction. Move-only.
class DeviceArray {
 public:
  DeviceArray() = default;
  /// Allocates `bytes`. Throws Error (exit 1) naming `what` when cudaMalloc fails.
  DeviceArray(size_t bytes, const std::string& what);
  ~DeviceArray();
  DeviceArray(DeviceArray&& o) noexcept;
  DeviceArray& operator=(DeviceArray&& o) noexcept;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

  /// Overwrites the first `bytes` bytes with host memory `src` (synchronous cudaMemcpy).
  /// Throws Error (exit 1) naming `what` when the copy fails.
  void upload(const void* src, size_t bytes, const std::string& what);

  /// Allocates `bytes` without throwing: nullopt when cudaMalloc fails, with `error` (when given)
  /// set to "<cuda error name>: <description>"; the CUDA error state is cleared.
  static std::optional<DeviceArray> try_allocate(size_t bytes, std::string* error = nullptr);
  /// A new allocation holding a copy of `bytes` bytes at device pointer `src` (synchronous).
  static DeviceArray copy_of(const void* src, size_t bytes, const std::string& what);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace kprof
