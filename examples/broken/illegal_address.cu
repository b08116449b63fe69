// BROKEN ON PURPOSE (kprof check must fail: illegal memory access).
// The vector add writes through a wild pointer (address 0x100, a "forgot to allocate" bug)
// instead of C. The pointer is passed as a kernel argument so the compiler cannot see it is
// bad and drop the store: the first store faults with cudaErrorIllegalAddress, which also
// makes the CUDA context unusable afterwards.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o illegal_address.so illegal_address.cu
// Check: kprof check examples/broken/illegal_address.cu --ref examples/cuda/vector_add/ref.py --N=100000
#include <cuda_runtime.h>

__global__ void illegal_address_kernel(const float* A, const float* B, float* out, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = A[i] + B[i];  // faults: `out` is not device memory
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  (void)C;
  float* out = reinterpret_cast<float*>(0x100);  // BUG: a wild pointer instead of C
  illegal_address_kernel<<<(N + 255) / 256, 256>>>(A, B, out, N);
}
