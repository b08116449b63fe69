// SGEMM progression, version 3 (1-D register blocking): C[M, N] = A[M, K] @ B[K, N], float32,
// row-major (siboehm's kernel 4).
//
// Launch: 512 threads per block (1-D), grid (ceil(N / 64), ceil(M / 64)). A block owns a
// BM x BN = 64 x 64 tile of C and walks K in steps of BK = 8. Each thread computes TM = 8
// outputs down one column: column tcol = tid % 64, rows trow * 8 .. trow * 8 + 7 with
// trow = tid / 64, accumulated in 8 registers. Per K step every thread stages exactly one
// element of the 64 x 8 A tile (As[m][k]) and one of the 8 x 64 B tile (Bs[k][n]) in shared
// memory; then, for each k, it reads one Bs value into a register and reuses it for 8 FFMAs
// with 8 As values. A warp's 32 threads share trow (their As reads are one address: broadcast)
// and read 32 consecutive Bs floats (no bank conflict). Tiles past M, K or N are zero-filled
// and the stores are guarded: any sizes work.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v3_blocktile1d.so v3_blocktile1d.cu
#include <cuda_runtime.h>

#include <cstddef>

constexpr int kBM = 64, kBN = 64, kBK = 8;  // block tile of C: kBM x kBN, kBK deep in K
constexpr int kTM = 8;                      // outputs per thread, down a column
constexpr int kThreads = kBM * kBN / kTM;   // 512
static_assert(kBM * kBK == kThreads, "one A-tile element per thread");
static_assert(kBK * kBN == kThreads, "one B-tile element per thread");

__global__ void __launch_bounds__(kThreads)
    sgemm_v3_blocktile1d(const float* A, const float* B, float* C, int M, int K, int N) {
  __shared__ float As[kBM * kBK];  // As[m * kBK + k]
  __shared__ float Bs[kBK * kBN];  // Bs[k * kBN + n]
  const int tid = threadIdx.x;
  const int tcol = tid % kBN;  // 0..63: the thread's column in the block tile
  const int trow = tid / kBN;  // 0..7: its rows trow * kTM .. + kTM - 1
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const int am = tid / kBK, ak = tid % kBK;  // the A-tile element this thread stages
  const int bk = tid / kBN, bn = tid % kBN;  // the B-tile element

  float acc[kTM] = {};
  for (int k0 = 0; k0 < K; k0 += kBK) {
    {
      const int gm = row0 + am, gk = k0 + ak;
      As[am * kBK + ak] = (gm < M && gk < K) ? A[static_cast<size_t>(gm) * K + gk] : 0.f;
    }
    {
      const int gk = k0 + bk, gn = col0 + bn;
      Bs[bk * kBN + bn] = (gk < K && gn < N) ? B[static_cast<size_t>(gk) * N + gn] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      const float b = Bs[k * kBN + tcol];
#pragma unroll
      for (int i = 0; i < kTM; ++i) acc[i] += As[(trow * kTM + i) * kBK + k] * b;
    }
    __syncthreads();
  }
  const int gn = col0 + tcol;
  if (gn >= N) return;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int gm = row0 + trow * kTM + i;
    if (gm < M) C[static_cast<size_t>(gm) * N + gn] = acc[i];
  }
}

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  sgemm_v3_blocktile1d<<<grid, kThreads>>>(A, B, C, M, K, N);
}
