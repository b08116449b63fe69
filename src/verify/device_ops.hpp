// Device-memory helpers of the correctness check: owned copies handed to the reference, and the
// sentinel fill used to find never-written elements.
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

  /// A new allocation holding a copy of `bytes` bytes at device pointer `src` (synchronous).
  static DeviceArray copy_of(const void* src, size_t bytes, const std::string& what);

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// Fills `count` elements of `elem_size` bytes (1, 2, 4 or 8) at device pointer `ptr` with the
/// element bit pattern `bits` (kprof's own kernel on the default stream, then synchronised).
/// Throws Error (exit 1) on a CUDA error, (exit 2) for another element size.
void fill_bits(void* ptr, size_t count, size_t elem_size, uint64_t bits);

}  // namespace kprof
