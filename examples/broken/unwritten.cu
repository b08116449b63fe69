// BROKEN ON PURPOSE (kprof check must fail: part of C is never written).
// A vector add that skips every 64th element (i % 64 == 63): C keeps its pre-call contents there.
// The other elements are right, so only fill-pattern detection of unwritten elements (or a lucky
// mismatch) can catch it. Fails for every N >= 64.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o unwritten.so unwritten.cu
// Check: kprof check examples/broken/unwritten.cu --ref examples/cuda/vector_add/ref.py --N=100000
#include <cuda_runtime.h>

__global__ void unwritten_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && i % 64 != 63) C[i] = A[i] + B[i];  // BUG: every 64th element is skipped
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  unwritten_kernel<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
