// Vector add with a compile error (a missing semicolon): `kprof build` and `--build` must fail with
// nvcc's own message and exit 1; in `kprof run` this version's row says so and the others go on.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i]  // <- the bug: no semicolon
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_kernel<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
