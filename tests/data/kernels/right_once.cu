// C = A + B over N floats on the first two calls of every three, C = A + B + 1 on the third: a
// kernel right on its first call only by luck of the order (tests/gpu/test_check_rules.cpp: the
// check's repeat call on the same fresh inputs catches it; the first and the sentinel call pass).
#include <cuda_runtime.h>

__global__ void vadd_kernel(const float* a, const float* b, float* c, int n, float extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] + extra;
}

static int calls = 0;

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  float extra = (calls++ % 3 == 2) ? 1.0f : 0.0f;
  vadd_kernel<<<(N + 255) / 256, 256>>>(A, B, C, N, extra);
}
