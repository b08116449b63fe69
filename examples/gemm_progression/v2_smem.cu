// SGEMM progression, version 2 (shared-memory tiling): C[M, N] = A[M, K] @ B[K, N], float32,
// row-major, one thread per element of C (siboehm's kernel 3).
//
// Launch: 32 x 32 threads per block, grid (ceil(N / 32), ceil(M / 32)); the block owns a
// 32 x 32 tile of C. It walks K in steps of 32: each thread loads one element of the 32 x 32 A
// tile and one of the 32 x 32 B tile (both coalesced along threadIdx.x) into shared memory,
// __syncthreads, then reads its row of As (one address per warp: broadcast) and its column of
// Bs (32 consecutive floats: no bank conflict) for 32 FFMAs. Global loads drop from 2 per FFMA
// (v1) to 2 per 32 FFMAs; every FFMA now needs shared-memory operands instead. Tiles past M, K
// or N are zero-filled and the store is guarded: any sizes work.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v2_smem.so v2_smem.cu
#include <cuda_runtime.h>

#include <cstddef>

constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile * kTile)
    sgemm_v2_smem(const float* A, const float* B, float* C, int M, int K, int N) {
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
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 block(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  sgemm_v2_smem<<<grid, block>>>(A, B, C, M, K, N);
}
