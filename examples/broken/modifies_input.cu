// BROKEN ON PURPOSE (kprof check must fail: a const input was modified).
// C[i] = A[i] + B[i] is correct, but the kernel also zeroes A[i] (const_cast through the const
// pointer), so a caller's input is destroyed; repeated calls would then compute C = B.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o modifies_input.so modifies_input.cu
// Check: kprof check examples/broken/modifies_input.cu --ref examples/cuda/vector_add/ref.py --N=100000
#include <cuda_runtime.h>

__global__ void modifies_input_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    C[i] = A[i] + B[i];
    const_cast<float*>(A)[i] = 0.f;  // BUG: writes into the const input (same thread, after its read)
  }
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  modifies_input_kernel<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
