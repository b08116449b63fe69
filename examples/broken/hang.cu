// BROKEN ON PURPOSE (kprof check must stop it: the kernel never finishes).
// Thread 0 of block 0 waits for a device flag that nothing ever sets (a lost-signal bug), so the
// kernel never completes and a synchronize would wait forever. Use with a short timeout, e.g.
//   kprof check examples/broken/hang.cu --ref examples/cuda/vector_add/ref.py --N=1024 --timeout 10
// The spinning thread sleeps between polls (__nanosleep) so it does not heat a shared GPU.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o hang.so hang.cu
#include <cuda_runtime.h>

__device__ int g_ready = 0;  // BUG: nothing ever sets this flag

__global__ void hang_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    volatile int* ready = &g_ready;  // volatile: re-read from memory on every poll
    while (*ready == 0) __nanosleep(1000);
  }
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  hang_kernel<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
