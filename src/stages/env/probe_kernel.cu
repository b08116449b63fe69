#include "stages/env/probe_kernel.hpp"

#include <cuda_runtime.h>

#include "device/cuda.hpp"
#include "device/device_array.hpp"
#include "core/error.hpp"

namespace kprof {
namespace {

__global__ void kprof_probe_kernel(unsigned* out) {
  unsigned v = threadIdx.x * 2u + 1u;
  for (int i = 0; i < 64; ++i) v = v * 1664525u + 1013904223u;  // a little work to count cycles
  if (threadIdx.x == 0) out[0] = 42u;
  out[1 + threadIdx.x] = v;
}

}  // namespace

void run_probe_kernel(int gpu) {
  select_gpu(gpu);
  DeviceArray mem(33 * sizeof(unsigned), "the probe kernel's output");
  unsigned* d = static_cast<unsigned*>(mem.get());
  kprof_probe_kernel<<<1, 32>>>(d);
  cuda_check(cudaGetLastError(), "launching kprof's probe kernel");
  unsigned first = 0;
  cuda_check(cudaMemcpy(&first, d, sizeof first, cudaMemcpyDeviceToHost), "running kprof's probe kernel");
  if (first != 42u)
    throw check_failed("kprof's probe kernel ran but wrote " + std::to_string(first) + " instead of 42");
}

}  // namespace kprof
