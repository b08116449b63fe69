// Float32 GEMM, version 2: 2-D register blocking. C[M, N] = A[M, K] @ B[K, N], row-major.
//
// Launch: 256 threads per block, grid (ceil(N / 128), ceil(M / 128)); a block computes a
// 128 x 128 tile of C and each thread an 8 x 8 sub-tile of it, kept in 64 registers. The block
// walks K in steps of 8: its 256 threads stage a 128 x 8 tile of A (stored transposed, As[k][m],
// so a thread's 8 A values for one k are contiguous) and an 8 x 128 tile of B in shared memory;
// then, for each k, every thread loads 8 A and 8 B values into registers and does 64 FMAs:
// 8 FMAs per shared-memory load instead of v1's 1/2. Tiles past M, K or N are zero-filled and
// the stores are guarded: any sizes work.
//
// All pointers are plain `float*` (A and B are only read).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v2.so v2.cu
#include <cuda_runtime.h>

constexpr int kBM = 128, kBN = 128, kBK = 8;  // block tile: kBM x kBN of C, kBK deep
constexpr int kTM = 8, kTN = 8;               // thread tile
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256

__global__ void __launch_bounds__(kThreads) gemm_v2(float* A, float* B, float* C, int M, int K, int N) {
  __shared__ float As[kBK][kBM];  // transposed A tile
  __shared__ float Bs[kBK][kBN];
  const int tid = threadIdx.x;
  const int trow = tid / (kBN / kTN);  // 0..15: which 8 rows of the block tile
  const int tcol = tid % (kBN / kTN);  // 0..15: which 8 columns
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;

  float acc[kTM][kTN] = {};
  float ra[kTM], rb[kTN];
  for (int k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int i = 0; i < kBM * kBK / kThreads; ++i) {  // 4 A elements per thread
      const int e = tid + i * kThreads, m = e / kBK, k = e % kBK;
      const int gm = row0 + m, gk = k0 + k;
      As[k][m] = (gm < M && gk < K) ? A[static_cast<size_t>(gm) * K + gk] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < kBK * kBN / kThreads; ++i) {  // 4 B elements per thread, along a row
      const int e = tid + i * kThreads, k = e / kBN, n = e % kBN;
      const int gk = k0 + k, gn = col0 + n;
      Bs[k][n] = (gk < K && gn < N) ? B[static_cast<size_t>(gk) * N + gn] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
#pragma unroll
      for (int i = 0; i < kTM; ++i) ra[i] = As[k][trow * kTM + i];
#pragma unroll
      for (int j = 0; j < kTN; ++j) rb[j] = Bs[k][tcol * kTN + j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int gm = row0 + trow * kTM + i;
    if (gm >= M) break;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const int gn = col0 + tcol * kTN + j;
      if (gn < N) C[static_cast<size_t>(gm) * N + gn] = acc[i][j];
    }
  }
}

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(float* A, float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  gemm_v2<<<grid, kThreads>>>(A, B, C, M, K, N);
}
