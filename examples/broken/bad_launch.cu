// BROKEN ON PURPOSE (kprof check must fail: invalid launch configuration).
// A vector add launched with 2048 threads per block (the limit is 1024): the kernel never runs,
// the launch only records cudaErrorInvalidConfiguration, which a harness that does not call
// cudaGetLastError after solve() silently misses.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o bad_launch.so bad_launch.cu
// Check: kprof check examples/broken/bad_launch.cu --ref examples/cuda/vector_add/ref.py --N=100000
#include <cuda_runtime.h>

__global__ void bad_launch_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  const int threads = 2048;  // BUG: more than the 1024 threads per block a GPU allows
  bad_launch_kernel<<<(N + threads - 1) / threads, threads>>>(A, B, C, N);
}
