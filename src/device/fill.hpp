// Seeded and pattern fills of device buffers, done on the GPU by kprof's own kernels (fill.cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/dtype.hpp"

namespace kprof {

/// Fills `count` elements of `dtype` at device address `ptr` with seeded random values
/// (device/fill_hash.hpp): floats normal(0,1) (float16/bfloat16 rounded to nearest even from the
/// float32 sample), integers uniform in [0, 16). Element i depends only on (seed, buffer, i).
/// Asynchronous on `stream`. Throws Error (exit 1) when the launch fails.
void fill_seeded(void* ptr, DType dtype, size_t count, uint64_t seed, uint32_t buffer, cudaStream_t stream = 0);

/// Fills `count` elements of `dtype` with one bit pattern: the low dtype_size(dtype) bytes of
/// `bits` (e.g. 0x7FC00001 for a float32 NaN that no arithmetic produces, to find elements a
/// kernel never wrote). Asynchronous on `stream`. Throws Error (exit 1) when the launch fails.
void fill_pattern(void* ptr, DType dtype, size_t count, uint64_t bits, cudaStream_t stream = 0);

}  // namespace kprof
