// Multi-head attention, version 2 (one warp per query row, online softmax): K and V are read
// once per query row instead of three times.
//
// out = softmax(Q K^T / sqrt(dk)) V per head. Q, K, V and output are N x d_model float32,
// row-major; head hh uses the columns [hh * dk, hh * dk + dk), dk = d_model / heads.
// One warp per (head, query row), 4 warps per block. The keys go by in blocks of 32: lane l scores
// key j0 + l against the whole query row (held by every lane in registers, pre-scaled by
// 1 / sqrt(dk)); the block's maximum and sum of exp come from __shfl_xor_sync; the running
// maximum m and sum l are rescaled by exp(m_old - m_new) when the maximum grows (online
// softmax). Then each lane adds the 32 weighted V rows into its own columns of the output
// (lane, lane + 32, ...), the weights broadcast with __shfl_sync. One pass over K and V; the K
// reads are uncoalesced (each lane a different row), the V reads coalesced.
// Head dims up to 128; larger ones, or d_model % heads != 0: solve() returns without writing.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v2.so v2.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kWarps = 4;  // warps (query rows) per block
constexpr unsigned kFull = 0xffffffffu;

template <int MAXD>
__global__ void __launch_bounds__(32 * kWarps)
    attention_v2(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk,
                 int heads, float scale) {
  constexpr int kPerLane = MAXD / 32;  // output columns per lane
  const int lane = threadIdx.x & 31;
  const int w = blockIdx.x * kWarps + (threadIdx.x >> 5);
  if (w >= N * heads) return;  // the whole warp leaves together: its shuffles stay full-warp
  const int hh = w / N, i = w % N;
  const size_t col0 = static_cast<size_t>(hh) * dk;
  float q[MAXD];
#pragma unroll
  for (int c = 0; c < MAXD; ++c) q[c] = c < dk ? Q[static_cast<size_t>(i) * d_model + col0 + c] * scale : 0.f;
  float acc[kPerLane];
#pragma unroll
  for (int k = 0; k < kPerLane; ++k) acc[k] = 0.f;
  float m = -INFINITY, l = 0.f;
  for (int j0 = 0; j0 < N; j0 += 32) {
    const int j = j0 + lane;
    float s = -INFINITY;  // keys past N weigh exp(-inf) = 0
    if (j < N) {
      const float* kr = K + static_cast<size_t>(j) * d_model + col0;
      s = 0.f;
#pragma unroll
      for (int c = 0; c < MAXD; ++c)
        if (c < dk) s += q[c] * kr[c];
    }
    float mb = s;
    for (int off = 16; off > 0; off >>= 1) mb = fmaxf(mb, __shfl_xor_sync(kFull, mb, off));
    const float m_new = fmaxf(m, mb);  // finite: key j0 < N exists
    const float alpha = expf(m - m_new);  // 0 on the first block (m = -inf)
    const float p = expf(s - m_new);
    float ps = p;
    for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(kFull, ps, off);
    l = l * alpha + ps;
    m = m_new;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) acc[k] *= alpha;
    const int nk = N - j0 < 32 ? N - j0 : 32;  // the same for every lane
    for (int t = 0; t < nk; ++t) {
      const float pt = __shfl_sync(kFull, p, t);
      const float* vr = V + static_cast<size_t>(j0 + t) * d_model + col0;
#pragma unroll
      for (int k = 0; k < kPerLane; ++k) {
        const int c = lane + 32 * k;
        if (c < dk) acc[k] += pt * vr[c];
      }
    }
  }
  const float inv = 1.f / l;
  float* o = output + static_cast<size_t>(i) * d_model + col0;
#pragma unroll
  for (int k = 0; k < kPerLane; ++k) {
    const int c = lane + 32 * k;
    if (c < dk) o[c] = acc[k] * inv;
  }
}

// Q, K, V, output: N * d_model floats (device). Default stream, no synchronization.
extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (N <= 0 || heads <= 0 || d_model <= 0 || d_model % heads != 0) return;
  const int dk = d_model / heads;
  const float scale = 1.f / sqrtf(static_cast<float>(dk));
  const int blocks = (N * heads + kWarps - 1) / kWarps;
  if (dk <= 32) attention_v2<32><<<blocks, 32 * kWarps>>>(Q, K, V, output, N, d_model, dk, heads, scale);
  else if (dk <= 64) attention_v2<64><<<blocks, 32 * kWarps>>>(Q, K, V, output, N, d_model, dk, heads, scale);
  else if (dk <= 128) attention_v2<128><<<blocks, 32 * kWarps>>>(Q, K, V, output, N, d_model, dk, heads, scale);
}
