// The checked fills of fill.hpp over the launches of fill.cu (device/launch.hpp says why apart).
#include "device/fill.hpp"

#include "device/cuda.hpp"
#include "device/launch.hpp"

namespace kprof {

void fill_seeded(void* ptr, DType dtype, size_t count, uint64_t seed, uint32_t buffer, cudaStream_t stream) {
  if (count == 0) return;
  cuda_check(launch_fill_seeded(ptr, dtype, count, seed, buffer, stream),
             "launching kprof's seeded fill (" + dtype_name(dtype) + ")");
}

void fill_pattern(void* ptr, DType dtype, size_t count, uint64_t bits, cudaStream_t stream) {
  if (count == 0) return;
  cuda_check(launch_fill_pattern(ptr, dtype_size(dtype), count, bits, stream),
             "launching kprof's pattern fill (" + dtype_name(dtype) + ")");
}

}  // namespace kprof
