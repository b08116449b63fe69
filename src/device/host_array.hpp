// A typed array copied to the host, as the comparison and reports consume it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <memory>
#include <utility>
#include <vector>

#include "core/dtype.hpp"

namespace kprof {

/// An allocator that leaves new elements uninitialised: a HostArray is always overwritten by a
/// copy right after it is sized, and zero-filling gigabytes first costs seconds.
template <typename T>
struct NoInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <typename U>
  NoInitAllocator(const NoInitAllocator<U>&) {}
  template <typename U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

/// Raw element bytes of a HostArray.
using HostBytes = std::vector<uint8_t, NoInitAllocator<uint8_t>>;

/// `count` elements of `dtype`, stored as raw little-endian bytes.
struct HostArray {
  std::string name;
  DType dtype = DType::F32;
  size_t count = 0;
  HostBytes bytes;  ///< count * dtype_size(dtype) bytes

  double at(size_t i) const { return dtype_load(bytes.data(), i, dtype); }
  uint64_t bits(size_t i) const { return dtype_load_bits(bytes.data(), i, dtype); }
};

/// Copies `count` elements of `dtype` from device memory `ptr` (synchronous cudaMemcpy).
/// Throws Error (exit 1) when the copy fails (for example after a kernel fault).
HostArray copy_to_host(const std::string& name, DType dtype, size_t count, const void* device_ptr);

}  // namespace kprof
