// The host functions that nvcc compiles (fill.cu, device_compare.cu): kernel launches only, with
// C types in and a cudaError_t out. The wheel's C++ is built by zig against libc++ while nvcc's host
// code is built by g++ against libstdc++ (docs/INSTALL.md, "How the wheel is built"), so no
// std:: type, exception or kprof function taking one may cross this line; the callers (fill.cpp,
// device_compare.cpp) turn the cudaError_t into kprof's errors.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/dtype.hpp"

namespace kprof {

/// Launches the seeded fill of `count` elements of `dtype` at `ptr` on `stream` (fill.hpp's
/// fill_seeded); returns cudaGetLastError() after the launch.
cudaError_t launch_fill_seeded(void* ptr, DType dtype, size_t count, uint64_t seed, uint32_t buffer,
                               cudaStream_t stream);
/// Launches the bit-pattern fill of `count` elements of `element_bytes` (1, 2, 4 or 8) bytes each.
cudaError_t launch_fill_pattern(void* ptr, size_t element_bytes, size_t count, uint64_t bits, cudaStream_t stream);
/// Launches the comparison of `bytes` bytes at device addresses a and b; sets the device word
/// *differs to 1 where they differ (the caller zeroes it first and reads it back).
cudaError_t launch_bytes_differ(const void* a, const void* b, size_t bytes, unsigned* differs);

}  // namespace kprof
