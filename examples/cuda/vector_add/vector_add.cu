// Vector add: C[i] = A[i] + B[i] for i in [0, N).
//
// Launch: ceil(N / 256) blocks of 256 threads, one element per thread; the `i < N` guard makes
// any N correct (not only multiples of 256). kprof sizes every buffer to N elements (the seed's
// rule for a single int dimension), so no --size is needed.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o vector_add.so vector_add.cu
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

// A, B: inputs of N floats (device); C: output of N floats (device). Launches on the default
// stream and returns without synchronizing (kprof checks the launch error and synchronizes).
extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  const int threads = 256;
  const int blocks = (N + threads - 1) / threads;
  vector_add_kernel<<<blocks, threads>>>(A, B, C, N);
}
