// SGEMM progression, version 0 (naive, uncoalesced): C[M, N] = A[M, K] @ B[K, N], float32,
// row-major, one thread per element of C (siboehm's kernel 1).
//
// Launch: 32 x 32 threads per block, grid (ceil(M / 32), ceil(N / 32)). x = blockIdx.x * 32 +
// threadIdx.x indexes the ROW of C and y = blockIdx.y * 32 + threadIdx.y its column, so the 32
// threads of a warp (consecutive threadIdx.x, one threadIdx.y) own 32 consecutive rows of one
// column. For each k a warp loads A[x][k] for 32 different rows, K floats apart: 32 sectors per
// request, 4 of each sector's 32 bytes used (uncoalesced); B[k][y] is one address (broadcast);
// the C store writes 32 rows of one column (32 sectors). Each A and B element is loaded from
// global memory (mostly hitting L1/L2) by every thread that needs it: 2 loads per FFMA.
// Guards on x and y: any M, K, N work (the K loop needs none).
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v0_naive.so v0_naive.cu
#include <cuda_runtime.h>

#include <cstddef>

constexpr int kBlock = 32;

__global__ void __launch_bounds__(kBlock * kBlock)
    sgemm_v0_naive(const float* A, const float* B, float* C, int M, int K, int N) {
  const int x = blockIdx.x * kBlock + threadIdx.x;  // row of C: consecutive lanes, consecutive rows
  const int y = blockIdx.y * kBlock + threadIdx.y;  // column of C: one per warp
  if (x >= M || y >= N) return;
  const float* a = A + static_cast<size_t>(x) * K;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += a[k] * B[static_cast<size_t>(k) * N + y];
  C[static_cast<size_t>(x) * N + y] = acc;
}

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 block(kBlock, kBlock);
  const dim3 grid((M + kBlock - 1) / kBlock, (N + kBlock - 1) / kBlock);
  sgemm_v0_naive<<<grid, block>>>(A, B, C, M, K, N);
}
