// SGEMM progression, version 5 (vectorized memory access): C[M, N] = A[M, K] @ B[K, N], float32,
// row-major (siboehm's kernel 6).
//
// Launch: 256 threads per block (1-D), grid (ceil(N / 128), ceil(M / 128)), as v4: a block owns
// a 128 x 128 tile of C, walks K in steps of BK = 8, and each thread computes an 8 x 8 sub-tile
// (rows trow * 8 .., columns tcol * 8 .., trow = tid / 16, tcol = tid % 16) in 64 registers.
// What changes against v4:
//   - global loads are 128-bit: per K step each thread loads ONE float4 of the 128 x 8 A tile
//     (row tid / 2, k (tid % 2) * 4 ..) and ONE float4 of the 8 x 128 B tile (row tid / 32,
//     columns (tid % 32) * 4 ..) instead of 4 + 4 scalars; B goes to shared memory with one
//     128-bit store;
//   - the A tile is stored TRANSPOSED in shared memory, As[k][m] (4 scalar stores per thread),
//     so a thread's 8 A values for one k are contiguous: the inner loop reads them, and its 8 B
//     values, as 2 + 2 float4 (LDS.128) per k, keeping only 16 fragment registers live;
//   - C is written with 128-bit stores.
// Alignment: the 128-bit path (template kVec = true) is taken only when K % 4 == 0,
// N % 4 == 0 and A, B, C are 16-byte aligned (checked in solve()). Then every float4 starts at
// a multiple of 4 floats from a 16-byte-aligned base: A at gm * K + k0 + {0, 4}, B at
// gk * N + col0 + 4 * q, C at gm * N + col0 + tcol * 8 + {0, 4} (k0 % 8 == 0, col0 % 128 == 0),
// and a float4 lies either wholly inside the row or wholly past its end (K and N are multiples
// of 4), so one bounds test per float4 is exact. Otherwise (kVec = false) the same kernel loads
// and stores element by element with a guard on each (same tile layout, scalar instructions).
// Tiles past M, K or N are zero-filled and the stores are guarded: any sizes work.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v5_vectorized.so v5_vectorized.cu
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

constexpr int kBM = 128, kBN = 128, kBK = 8;         // block tile of C, kBK deep in K
constexpr int kTM = 8, kTN = 8;                      // thread tile
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256
static_assert(kBM * kBK == 4 * kThreads, "one float4 of the A tile per thread");
static_assert(kBK * kBN == 4 * kThreads, "one float4 of the B tile per thread");

template <bool kVec>
__global__ void __launch_bounds__(kThreads)
    sgemm_v5_vectorized(const float* A, const float* B, float* C, int M, int K, int N) {
  __shared__ __align__(16) float As[kBK * kBM];  // transposed: As[k * kBM + m]
  __shared__ __align__(16) float Bs[kBK * kBN];  // Bs[k * kBN + n]
  const int tid = threadIdx.x;
  const int trow = tid / (kBN / kTN);  // 0..15
  const int tcol = tid % (kBN / kTN);  // 0..15
  const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const int am = tid / (kBK / 4), ak = (tid % (kBK / 4)) * 4;  // A float4: row am, k ak .. ak + 3
  const int bk = tid / (kBN / 4), bn = (tid % (kBN / 4)) * 4;  // B float4: row bk, n bn .. bn + 3

  float acc[kTM][kTN] = {};
  float ra[kTM], rb[kTN];
  for (int k0 = 0; k0 < K; k0 += kBK) {
    {
      const int gm = row0 + am, gk = k0 + ak;
      const float* src = A + static_cast<size_t>(gm) * K + gk;
      float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
      if (kVec) {
        if (gm < M && gk < K) a = *reinterpret_cast<const float4*>(src);
      } else if (gm < M) {
        if (gk + 0 < K) a.x = src[0];
        if (gk + 1 < K) a.y = src[1];
        if (gk + 2 < K) a.z = src[2];
        if (gk + 3 < K) a.w = src[3];
      }
      As[(ak + 0) * kBM + am] = a.x;
      As[(ak + 1) * kBM + am] = a.y;
      As[(ak + 2) * kBM + am] = a.z;
      As[(ak + 3) * kBM + am] = a.w;
    }
    {
      const int gk = k0 + bk, gn = col0 + bn;
      const float* src = B + static_cast<size_t>(gk) * N + gn;
      float4 b = make_float4(0.f, 0.f, 0.f, 0.f);
      if (kVec) {
        if (gk < K && gn < N) b = *reinterpret_cast<const float4*>(src);
      } else if (gk < K) {
        if (gn + 0 < N) b.x = src[0];
        if (gn + 1 < N) b.y = src[1];
        if (gn + 2 < N) b.z = src[2];
        if (gn + 3 < N) b.w = src[3];
      }
      *reinterpret_cast<float4*>(&Bs[bk * kBN + bn]) = b;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
#pragma unroll
      for (int i = 0; i < kTM; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&As[k * kBM + trow * kTM + i]);
        ra[i] = v.x, ra[i + 1] = v.y, ra[i + 2] = v.z, ra[i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < kTN; j += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&Bs[k * kBN + tcol * kTN + j]);
        rb[j] = v.x, rb[j + 1] = v.y, rb[j + 2] = v.z, rb[j + 3] = v.w;
      }
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
    float* dst = C + static_cast<size_t>(gm) * N;
#pragma unroll
    for (int j = 0; j < kTN; j += 4) {
      const int gn = col0 + tcol * kTN + j;
      if (kVec) {
        if (gn < N)
          *reinterpret_cast<float4*>(dst + gn) =
              make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c)
          if (gn + c < N) dst[gn + c] = acc[i][j + c];
      }
    }
  }
}

static bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  const bool vec = K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
  if (vec)
    sgemm_v5_vectorized<true><<<grid, kThreads>>>(A, B, C, M, K, N);
  else
    sgemm_v5_vectorized<false><<<grid, kThreads>>>(A, B, C, M, K, N);
}
