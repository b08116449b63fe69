#include "stages/env/probe_kernel.hpp"

#include <cuda_runtime.h>

namespace kprof {
namespace {

__global__ void kprof_probe_kernel(unsigned* out) {
  unsigned v = threadIdx.x * 2u + 1u;
  for (int i = 0; i < 64; ++i) v = v * 1664525u + 1013904223u;  // a little work to count cycles
  if (threadIdx.x == 0) out[0] = 42u;
  out[1 + threadIdx.x] = v;
}

}  // namespace

cudaError_t launch_probe_kernel(unsigned* out) {
  kprof_probe_kernel<<<1, 32>>>(out);
  return cudaGetLastError();
}

}  // namespace kprof
