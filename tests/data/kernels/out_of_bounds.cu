// y = x over N floats, with a deliberate bug chosen by `mode` (tests/gpu/test_so_kernel.cpp):
//   0: also writes y[N] (one element past the end)
//   1: also writes y[-1] (one element before the start)
//   2: correct
#include <cuda_runtime.h>

__global__ void copy_kernel(const float* x, float* y, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
  if (i == 0 && mode == 0) y[n] = 1.0f;
  if (i == 0 && mode == 1) y[-1] = 1.0f;
}

extern "C" void solve(const float* x, float* y, int N, int mode) {
  copy_kernel<<<(N + 127) / 128, 128>>>(x, y, N, mode);
}
