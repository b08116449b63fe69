// C = A + B over N floats: the smallest correct cuda-cpp kernel (used by tests/gpu/test_so_kernel.cpp).
#include <cuda_runtime.h>

__global__ void vadd_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  int threads = 256;
  vadd_kernel<<<(N + threads - 1) / threads, threads>>>(A, B, C, N);
}
