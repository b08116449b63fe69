// Device-memory helper of the correctness check: owned copies handed to the reference.
#pragma once

#include <cstddef>
#include <cstdint>
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

  /// A new allocation holding a copy of `bytes` bytes at device pointer `src` (synchronous).
  static DeviceArray copy_of(const void* src, size_t bytes, const std::string& what);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace kprof
