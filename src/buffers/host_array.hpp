// A typed array copied to the host, as the comparison and reports consume it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace kprof {

/// `count` elements of `dtype`, stored as raw little-endian bytes.
struct HostArray {
  std::string name;
  DType dtype = DType::F32;
  size_t count = 0;
  std::vector<uint8_t> bytes;  ///< count * dtype_size(dtype) bytes

  double at(size_t i) const { return dtype_load(bytes.data(), i, dtype); }
  uint64_t bits(size_t i) const { return dtype_load_bits(bytes.data(), i, dtype); }
};

/// Copies `count` elements of `dtype` from device memory `ptr` (synchronous cudaMemcpy).
/// Throws Error (exit 1) when the copy fails (for example after a kernel fault).
HostArray copy_to_host(const std::string& name, DType dtype, size_t count, const void* device_ptr);

}  // namespace kprof
