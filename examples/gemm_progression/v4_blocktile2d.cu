// SGEMM progression, version 4 (2-D register blocking): C[M, N] = A[M, K] @ B[K, N], float32,
// row-major (siboehm's kernel 5).
//
// Launch: 256 threads per block (1-D), grid (ceil(N / 128), ceil(M / 128)). A block owns a
// BM x BN = 128 x 128 tile of C and walks K in steps of BK = 8. Each thread computes a
// TM x TN = 8 x 8 sub-tile (rows trow * 8 .., columns tcol * 8 .., trow = tid / 16,
// tcol = tid % 16) in 64 accumulator registers. Per K step the block stages the 128 x 8 A tile
// (As[m][k], as in global memory: not transposed) and the 8 x 128 B tile (Bs[k][n]) with
// scalar (32-bit) loads, 4 + 4 per thread; then for each k a thread copies 8 As values (a
// column of As: stride BK) and 8 Bs values (a row segment) into registers, ra[] and rb[], and
// does their 8 x 8 outer product: 64 FFMAs for 16 shared-memory values. Tiles past M, K or N
// are zero-filled and the stores are guarded: any sizes work.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v4_blocktile2d.so v4_blocktile2d.cu
#include <cuda_runtime.h>

#include <cstddef>

constexpr int kBM = 128, kBN = 128, kBK = 8;         // block tile of C, kBK deep in K
constexpr int kTM = 8, kTN = 8;                      // thread tile
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256
constexpr int kALoads = kBM * kBK / kThreads;        // 4 A-tile elements per thread
constexpr int kBLoads = kBK * kBN / kThreads;        // 4 B-tile elements per thread
static_assert(kThreads % kBK == 0 && kThreads % kBN == 0, "whole rows per load pass");

__global__ void __launch_bounds__(kThreads)
    sgemm_v4_blocktile2d(const float* A, const float* B, float* C, int M, int K, int N) {
  __shared__ float As[kBM * kBK];  // As[m * kBK + k]
  __shared__ float Bs[kBK * kBN];  // Bs[k * kBN + n]
  const int tid = threadIdx.x;
  const int trow = tid / (kBN / kTN);  // 0..15
  const int tcol = tid % (kBN / kTN);  // 0..15
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  // Staging: pass i loads A-tile element (am + i * 32, ak) and B-tile element (bk + i * 2, bn).
  const int am = tid / kBK, ak = tid % kBK;
  const int bk = tid / kBN, bn = tid % kBN;
  constexpr int kAStride = kThreads / kBK;  // 32 rows per pass
  constexpr int kBStride = kThreads / kBN;  // 2 rows per pass

  float acc[kTM][kTN] = {};
  float ra[kTM], rb[kTN];
  for (int k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int i = 0; i < kALoads; ++i) {
      const int m = am + i * kAStride, gm = row0 + m, gk = k0 + ak;
      As[m * kBK + ak] = (gm < M && gk < K) ? A[static_cast<size_t>(gm) * K + gk] : 0.f;
    }
#pragma unroll
    for (int i = 0; i < kBLoads; ++i) {
      const int k = bk + i * kBStride, gk = k0 + k, gn = col0 + bn;
      Bs[k * kBN + bn] = (gk < K && gn < N) ? B[static_cast<size_t>(gk) * N + gn] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
#pragma unroll
      for (int i = 0; i < kTM; ++i) ra[i] = As[(trow * kTM + i) * kBK + k];
#pragma unroll
      for (int j = 0; j < kTN; ++j) rb[j] = Bs[k * kBN + tcol * kTN + j];
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
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  sgemm_v4_blocktile2d<<<grid, kThreads>>>(A, B, C, M, K, N);
}
