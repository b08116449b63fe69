// BROKEN ON PURPOSE (kprof check must fail: the input A is modified).
// C[M, N] = A[M, K] @ B[K, N] with all pointers non-const, computed correctly: one block per
// row of C, whose 256 threads stride over the columns. But once a block has finished its row
// it overwrites that row of A with zeros ("A is consumed; free it for the next layer" - the
// author took the missing `const` to mean A was scratch space). No other block reads that
// row, so C is right; the caller's A is destroyed, and a second call computes C = 0. ref.py
// leaves A alone, so kprof must fail A (changed by the kernel, unchanged by the reference),
// not accept it as an input.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o gemm_writes_input.so gemm_writes_input.cu
// Check: kprof check examples/seed_style/broken/gemm_writes_input.cu --ref examples/seed_style/cuda_gemm/ref.py
//          --M=1000 --K=512 --N=1000 --size A=M*K --size B=K*N --size C=M*N
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void gemm_writes_input(float* A, float* B, float* C, int M, int K, int N) {
  const int row = blockIdx.x;
  float* a = A + static_cast<size_t>(row) * K;
  for (int col = threadIdx.x; col < N; col += kThreads) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += a[k] * B[static_cast<size_t>(k) * N + col];
    C[static_cast<size_t>(row) * N + col] = acc;
  }
  __syncthreads();  // every thread of the block is done reading this row of A
  for (int k = threadIdx.x; k < K; k += kThreads) a[k] = 0.f;  // BUG: writes into the input
}

extern "C" void solve(float* A, float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  gemm_writes_input<<<M, kThreads>>>(A, B, C, M, K, N);
}
