// SGEMM progression, version 1 (global memory coalescing): C[M, N] = A[M, K] @ B[K, N], float32,
// row-major, one thread per element of C (siboehm's kernel 2).
//
// Launch: 32 x 32 threads per block, grid (ceil(N / 32), ceil(M / 32)): v0's work with the axes
// swapped. threadIdx.x now walks the COLUMNS of C, so a warp owns 32 consecutive columns of one
// row: for each k it loads one A element (broadcast, 1 sector) and 32 consecutive floats of a B
// row (128 bytes, 4 sectors, every byte used), and its C store is one 128-byte line. Each A and
// B element is still loaded by every thread that needs it (2 global loads per FFMA; the
// re-loads hit in L1). Guards on row and col: any M, K, N work.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v1_coalesced.so v1_coalesced.cu
#include <cuda_runtime.h>

#include <cstddef>

constexpr int kBlock = 32;

__global__ void __launch_bounds__(kBlock * kBlock)
    sgemm_v1_coalesced(const float* A, const float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * kBlock + threadIdx.x;  // consecutive lanes, consecutive columns
  const int row = blockIdx.y * kBlock + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + static_cast<size_t>(row) * K;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += a[k] * B[static_cast<size_t>(k) * N + col];
  C[static_cast<size_t>(row) * N + col] = acc;
}

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 block(kBlock, kBlock);
  const dim3 grid((N + kBlock - 1) / kBlock, (M + kBlock - 1) / kBlock);
  sgemm_v1_coalesced<<<grid, block>>>(A, B, C, M, K, N);
}
