#include "gpu/testing_kernels.hpp"

namespace kprof::test_kernels {

namespace {
__device__ uint64_t globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
}  // namespace

__global__ void spin_kernel(uint64_t ns) {
  const uint64_t t0 = globaltimer_ns();
  while (globaltimer_ns() - t0 < ns) {
  }
}

__global__ void add_one_kernel(float* x, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void read_kernel(const float* x, size_t n, float* never_written) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    acc += x[i];
  if (acc == -1.0f) never_written[0] = acc;  // test data is never negative: keeps the reads alive
}

cudaError_t launch_spin(uint64_t ns, cudaStream_t stream, unsigned threads) {
  spin_kernel<<<1, threads, 0, stream>>>(ns);
  return cudaPeekAtLastError();
}

cudaError_t launch_add_one(float* x, size_t n, cudaStream_t stream) {
  const unsigned block = 256;
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  if (grid > 0) add_one_kernel<<<grid, block, 0, stream>>>(x, n);
  return cudaPeekAtLastError();
}

cudaError_t launch_read(const float* x, size_t n, cudaStream_t stream) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  read_kernel<<<static_cast<unsigned>(sms > 0 ? sms * 8 : 1024), 256, 0, stream>>>(x, n, nullptr);
  return cudaPeekAtLastError();
}

}  // namespace kprof::test_kernels
