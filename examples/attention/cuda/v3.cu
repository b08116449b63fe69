// Multi-head attention, version 3 (tiled, shared memory, online softmax): a block computes a
// tile of query rows against tiles of keys staged in shared memory, flash-attention style.
//
// out = softmax(Q K^T / sqrt(dk)) V per head. Q, K, V and output are N x d_model float32,
// row-major; head hh uses the columns [hh * dk, hh * dk + dk), dk = d_model / heads.
// Block (query tile, head) of 128 threads, tiles of BR = BC = 32 rows (16 for head dims above
// 64, to stay within 48 KB of static shared memory). The query tile (pre-scaled by 1 / sqrt(dk))
// is loaded once; for each key tile: K and V tiles loaded coalesced into shared memory (K padded
// by one column against bank conflicts); the BR x BC scores into shared memory (8 per thread);
// one thread per query row updates its running maximum and sum (online softmax) and turns its
// scores into weights; then every thread rescales and accumulates its 16 output values (row
// tid / (128 / BR), columns strided by 128 / BR) from the weights and the V tile. Scalar FMAs,
// each with a shared-memory load.
// Head dims up to 128; larger ones, or d_model % heads != 0: solve() returns without writing.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v3.so v3.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 128;

template <int MAXD>
__global__ void __launch_bounds__(kThreads)
    attention_v3(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk,
                 float scale) {
  constexpr int BR = MAXD <= 64 ? 32 : 16, BC = BR;
  constexpr int kTpr = kThreads / BR;        // threads per query row in the output update
  constexpr int kCols = MAXD / kTpr;         // output values per thread (16)
  __shared__ float Qs[BR][MAXD];
  __shared__ float Ks[BC][MAXD + 1];         // + 1: thread c reads row c, stride MAXD + 1 (no conflicts)
  __shared__ float Vs[BC][MAXD];
  __shared__ float Ss[BR][BC + 1];
  __shared__ float row_m[BR];      // running maximum of each query row
  __shared__ float row_l[BR];      // running sum of exp(score - row_m)
  __shared__ float row_alpha[BR];  // this tile's rescale factor exp(m_old - m_new)
  const int tid = threadIdx.x;
  const int i0 = blockIdx.x * BR;
  const size_t col0 = static_cast<size_t>(blockIdx.y) * dk;
  for (int idx = tid; idx < BR * MAXD; idx += kThreads) {
    const int r = idx / MAXD, c = idx % MAXD;
    Qs[r][c] = (i0 + r < N && c < dk) ? Q[static_cast<size_t>(i0 + r) * d_model + col0 + c] * scale : 0.f;
  }
  if (tid < BR) {
    row_m[tid] = -INFINITY;
    row_l[tid] = 0.f;
  }
  const int orow = tid / kTpr, ocol = tid % kTpr;  // this thread's output row and first column
  float acc[kCols];
#pragma unroll
  for (int k = 0; k < kCols; ++k) acc[k] = 0.f;

  for (int j0 = 0; j0 < N; j0 += BC) {
    for (int idx = tid; idx < BC * MAXD; idx += kThreads) {  // zero past N and dk: 0 * garbage could be NaN
      const int r = idx / MAXD, c = idx % MAXD;
      const bool in = j0 + r < N && c < dk;
      const size_t g = static_cast<size_t>(j0 + r) * d_model + col0 + c;
      Ks[r][c] = in ? K[g] : 0.f;
      Vs[r][c] = in ? V[g] : 0.f;
    }
    __syncthreads();
    for (int idx = tid; idx < BR * BC; idx += kThreads) {  // scores
      const int r = idx / BC, c = idx % BC;
      float s = 0.f;
#pragma unroll 16
      for (int d = 0; d < MAXD; ++d) s += Qs[r][d] * Ks[c][d];
      Ss[r][c] = j0 + c < N ? s : -INFINITY;
    }
    __syncthreads();
    if (tid < BR) {  // online softmax, one thread per query row
      float mb = -INFINITY;
      for (int c = 0; c < BC; ++c) mb = fmaxf(mb, Ss[tid][c]);
      const float m_new = fmaxf(row_m[tid], mb);  // finite: key j0 < N exists
      float sum = 0.f;
      for (int c = 0; c < BC; ++c) {
        const float p = expf(Ss[tid][c] - m_new);
        Ss[tid][c] = p;
        sum += p;
      }
      const float alpha = expf(row_m[tid] - m_new);  // 0 on the first tile
      row_l[tid] = row_l[tid] * alpha + sum;
      row_m[tid] = m_new;
      row_alpha[tid] = alpha;
    }
    __syncthreads();
    const float alpha = row_alpha[orow];
#pragma unroll
    for (int k = 0; k < kCols; ++k) acc[k] *= alpha;
    for (int c = 0; c < BC; ++c) {
      const float p = Ss[orow][c];
#pragma unroll
      for (int k = 0; k < kCols; ++k) acc[k] += p * Vs[c][ocol + kTpr * k];
    }
    __syncthreads();  // Ks, Vs and Ss are overwritten by the next tile
  }
  if (i0 + orow < N) {
    const float inv = 1.f / row_l[orow];
    float* o = output + static_cast<size_t>(i0 + orow) * d_model + col0;
#pragma unroll
    for (int k = 0; k < kCols; ++k) {
      const int c = ocol + kTpr * k;
      if (c < dk) o[c] = acc[k] * inv;
    }
  }
}

// Q, K, V, output: N * d_model floats (device). Default stream, no synchronization.
extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (N <= 0 || heads <= 0 || d_model <= 0 || d_model % heads != 0) return;
  const int dk = d_model / heads;
  const float scale = 1.f / sqrtf(static_cast<float>(dk));
  if (dk <= 64) attention_v3<64><<<dim3((N + 31) / 32, heads), kThreads>>>(Q, K, V, output, N, d_model, dk, scale);
  else if (dk <= 128) attention_v3<128><<<dim3((N + 15) / 16, heads), kThreads>>>(Q, K, V, output, N, d_model, dk, scale);
}
