// BROKEN ON PURPOSE (kprof check must fail: part of C is never written).
// The shared-memory tiled GEMM of ../cuda_gemm/v1.cu, C[M, N] = A[M, K] @ B[K, N], all
// pointers non-const, but the grid is sized with a floor division over the rows, M / 32
// instead of (M + 31) / 32: when M is not a multiple of 32 the last M % 32 rows of C are never
// written. At --M=2048 it passes; at --M=1000 rows 992..999 keep their old contents, and kprof
// must report C's elements as never written (C is a real output: the reference changes it,
// unlike A and B).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o gemm_skips_rows.so gemm_skips_rows.cu
// Check: kprof check examples/seed_style/broken/gemm_skips_rows.cu --ref examples/seed_style/cuda_gemm/ref.py
//          --M=1000 --K=512 --N=1000 --size A=M*K --size B=K*N --size C=M*N
#include <cuda_runtime.h>

constexpr int kTile = 32;

__global__ void gemm_skips_rows(float* A, float* B, float* C, int M, int K, int N) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[static_cast<size_t>(row) * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[static_cast<size_t>(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<size_t>(row) * N + col] = acc;
}

extern "C" void solve(float* A, float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, M / kTile);  // BUG: should be (M + kTile - 1) / kTile
  if (grid.y == 0) return;
  gemm_skips_rows<<<grid, block>>>(A, B, C, M, K, N);
}
