// Multi-head attention, version 1 (fused, one thread per query row): one kernel, no scratch
// buffer, three passes over the keys.
//
// out = softmax(Q K^T / sqrt(dk)) V per head. Q, K, V and output are N x d_model float32,
// row-major; head hh uses the columns [hh * dk, hh * dk + dk), dk = d_model / heads.
// One thread per (head, query row), 128 per block; consecutive threads take consecutive rows of
// one head, so a warp reads the same K and V element at once (a broadcast). The thread keeps its
// query row (pre-scaled by 1 / sqrt(dk)) and its output row in registers and walks all keys three
// times: the row maximum of the scores, the sum of exp(score - max), then the weighted sum of V;
// each pass recomputes the scores. Only heads * N threads (16384 at N = 2048, 8 heads): a few
// warps per SM, each a long chain of dependent FMAs (latency-bound).
// Head dims up to 128 (registers sized 32, 64 or 128; 128 spills); larger ones, or
// d_model % heads != 0: solve() returns without writing.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v1.so v1.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 128;

// q . k over the first dk of MAXD values (q is zero past dk).
template <int MAXD>
__device__ __forceinline__ float dot_row(const float (&q)[MAXD], const float* k, int dk) {
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < MAXD; ++c)
    if (c < dk) s += q[c] * k[c];
  return s;
}

template <int MAXD>
__global__ void __launch_bounds__(kThreads)
    attention_v1(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk,
                 int heads, float scale) {
  const int t = blockIdx.x * kThreads + threadIdx.x;
  if (t >= N * heads) return;
  const int hh = t / N, i = t % N;
  const size_t col0 = static_cast<size_t>(hh) * dk;
  float q[MAXD], acc[MAXD];
#pragma unroll
  for (int c = 0; c < MAXD; ++c) {
    q[c] = c < dk ? Q[static_cast<size_t>(i) * d_model + col0 + c] * scale : 0.f;
    acc[c] = 0.f;
  }
  float m = -INFINITY;  // pass 1: the largest score
  for (int j = 0; j < N; ++j) m = fmaxf(m, dot_row<MAXD>(q, K + static_cast<size_t>(j) * d_model + col0, dk));
  float l = 0.f;  // pass 2: the softmax denominator
  for (int j = 0; j < N; ++j) l += expf(dot_row<MAXD>(q, K + static_cast<size_t>(j) * d_model + col0, dk) - m);
  for (int j = 0; j < N; ++j) {  // pass 3: the weighted sum of V
    const float p = expf(dot_row<MAXD>(q, K + static_cast<size_t>(j) * d_model + col0, dk) - m);
    const float* v = V + static_cast<size_t>(j) * d_model + col0;
#pragma unroll
    for (int c = 0; c < MAXD; ++c)
      if (c < dk) acc[c] += p * v[c];
  }
  const float inv = 1.f / l;
  float* o = output + static_cast<size_t>(i) * d_model + col0;
#pragma unroll
  for (int c = 0; c < MAXD; ++c)
    if (c < dk) o[c] = acc[c] * inv;
}

// Q, K, V, output: N * d_model floats (device). Default stream, no synchronization.
extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (N <= 0 || heads <= 0 || d_model <= 0 || d_model % heads != 0) return;
  const int dk = d_model / heads;
  const float scale = 1.f / sqrtf(static_cast<float>(dk));
  const int blocks = (N * heads + kThreads - 1) / kThreads;
  if (dk <= 32) attention_v1<32><<<blocks, kThreads>>>(Q, K, V, output, N, d_model, dk, heads, scale);
  else if (dk <= 64) attention_v1<64><<<blocks, kThreads>>>(Q, K, V, output, N, d_model, dk, heads, scale);
  else if (dk <= 128) attention_v1<128><<<blocks, kThreads>>>(Q, K, V, output, N, d_model, dk, heads, scale);
}
