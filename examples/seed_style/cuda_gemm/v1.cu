// Float32 GEMM, version 1: shared-memory tiling. C[M, N] = A[M, K] @ B[K, N], row-major.
//
// Launch: 32 x 32 threads per block, grid (ceil(N / 32), ceil(M / 32)); each thread computes
// one C element. The block walks K in steps of 32: each thread loads one element of a 32 x 32
// tile of A and one of B into shared memory (both loads coalesced along threadIdx.x), then
// all threads read their row of As and column of Bs from shared memory. Every global element
// is loaded once per tile instead of once per output element: 32x fewer global loads than v0.
// Tiles past M, K or N are zero-filled: any sizes work.
//
// All pointers are plain `float*` (A and B are only read).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v1.so v1.cu
#include <cuda_runtime.h>

constexpr int kTile = 32;

__global__ void gemm_v1(float* A, float* B, float* C, int M, int K, int N) {
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

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(float* A, float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  gemm_v1<<<grid, block>>>(A, B, C, M, K, N);
}
