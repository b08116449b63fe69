// BROKEN ON PURPOSE (kprof check must fail: wrong values in C).
// A vector add with the wrong operator: C[i] = A[i] - B[i] instead of A[i] + B[i].
// Every element of C is written, nothing faults; only the values are wrong (|delta| = 2|B[i]|).
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o wrong_result.so wrong_result.cu
// Check: kprof check examples/broken/wrong_result.cu --ref examples/cuda/vector_add/ref.py --N=100000
#include <cuda_runtime.h>

__global__ void wrong_result_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] - B[i];  // BUG: should be A[i] + B[i]
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  wrong_result_kernel<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
