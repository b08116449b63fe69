// Multi-head attention, version 5 (flash-style, register-tiled, vectorized and prefetched):
// version 4 with conflict-free shared-memory layouts, float4 global loads, the next key tile
// prefetched into registers while the current one is computed, and exp2f.
//
// out = softmax(Q K^T / sqrt(dk)) V per head. Q, K, V and output are N x d_model float32,
// row-major; head hh uses the columns [hh * dk, hh * dk + dk), dk = d_model / heads.
// Block (64 query rows, head) of 256 threads as 16 x 16 (ty, tx); thread (ty, tx) owns the query
// rows ty + 16a and the keys tx + 16b (a, b < 4), so the 8 threads of a shared-memory phase read
// 8 different rows of a tile padded to MAXD + 4 floats (stride 4 banks apart: no conflicts).
// Scores: per 4 head-dim values, 4 float4 loads of Q (broadcast) and 4 of K for 64 FMAs. The
// query tile is pre-scaled by log2(e) / sqrt(dk), so exp(x) becomes exp2f(x). Online softmax as
// in version 4 (row max and sum over the 16 threads of a row group by __shfl_xor_sync). The
// weights go to PsT[key][4 * ty + a] as one float4 per key, the output block of a thread is rows
// ty + 16a, columns tx * 4 + 64g..+3: per key one float4 of weights and one of V per 16 FMAs.
// K and V of tile t + 1 are loaded into registers (float4 when dk and d_model are multiples of 4
// and the buffers 16-byte aligned, else 4 scalar loads) before tile t is computed and stored to
// shared memory after it: the global-load latency hides behind the math.
// Head dims up to 128; larger ones, or d_model % heads != 0: solve() returns without writing.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v5.so v5.cu
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

constexpr int kBr = 64, kBc = 64, kThreads = 256;
constexpr int kLdp = kBr + 4;  // PsT row length
constexpr unsigned kFull = 0xffffffffu;
constexpr float kLog2e = 1.4426950408889634f;

template <int MAXD>
constexpr size_t smem_floats() { return 2 * kBr * (MAXD + 4) + kBc * MAXD + kBc * kLdp; }

// Values d..d+3 of `row` (zeros past dk). VEC: one float4 load (dk % 4 == 0, row 16-byte aligned).
template <bool VEC>
__device__ __forceinline__ float4 load4(const float* row, int d, int dk) {
  if (VEC) return d < dk ? *reinterpret_cast<const float4*>(row + d) : make_float4(0.f, 0.f, 0.f, 0.f);
  return make_float4(d < dk ? row[d] : 0.f, d + 1 < dk ? row[d + 1] : 0.f, d + 2 < dk ? row[d + 2] : 0.f,
                     d + 3 < dk ? row[d + 3] : 0.f);
}

template <int MAXD, bool VEC>
__global__ void __launch_bounds__(kThreads)
    attention_v5(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk,
                 float qscale) {
  constexpr int G = MAXD / 64;                      // 64-column groups of the output
  constexpr int kLd = MAXD + 4;                     // row length of Qs and Ks
  constexpr int kF4 = kBc * MAXD / 4 / kThreads;    // float4 of a K (or V) tile per thread
  extern __shared__ float4 smem4[];
  float* Qs = reinterpret_cast<float*>(smem4);      // [kBr][kLd], pre-scaled
  float* Ks = Qs + kBr * kLd;                       // [kBc][kLd]
  float* Vs = Ks + kBc * kLd;                       // [kBc][MAXD]
  float* PsT = Vs + kBc * MAXD;                     // [kBc][kLdp]: PsT[key][4 * ty + a]
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int i0 = blockIdx.x * kBr;
  const size_t col0 = static_cast<size_t>(blockIdx.y) * dk;
  for (int e = tid; e < kBr * MAXD / 4; e += kThreads) {
    const int r = e / (MAXD / 4), d = (e % (MAXD / 4)) * 4;
    float4 q = make_float4(0.f, 0.f, 0.f, 0.f);
    if (i0 + r < N) q = load4<VEC>(Q + static_cast<size_t>(i0 + r) * d_model + col0, d, dk);
    *reinterpret_cast<float4*>(&Qs[r * kLd + d]) = make_float4(q.x * qscale, q.y * qscale, q.z * qscale, q.w * qscale);
  }
  float4 kr[kF4], vr[kF4];  // the next tile, in flight
  auto fetch = [&](int j0) {
#pragma unroll
    for (int f = 0; f < kF4; ++f) {
      const int e = tid + f * kThreads, r = e / (MAXD / 4), d = (e % (MAXD / 4)) * 4;
      kr[f] = vr[f] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (j0 + r < N) {
        const size_t row = static_cast<size_t>(j0 + r) * d_model + col0;
        kr[f] = load4<VEC>(K + row, d, dk);
        vr[f] = load4<VEC>(V + row, d, dk);
      }
    }
  };
  fetch(0);
  float m[4], l[4], acc[4][4 * G];
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    m[a] = -INFINITY;
    l[a] = 0.f;
#pragma unroll
    for (int b = 0; b < 4 * G; ++b) acc[a][b] = 0.f;
  }
  for (int j0 = 0; j0 < N; j0 += kBc) {
    __syncthreads();  // the previous tile's readers are done (and Qs is written, the first time)
#pragma unroll
    for (int f = 0; f < kF4; ++f) {
      const int e = tid + f * kThreads, r = e / (MAXD / 4), d = (e % (MAXD / 4)) * 4;
      *reinterpret_cast<float4*>(&Ks[r * kLd + d]) = kr[f];
      *reinterpret_cast<float4*>(&Vs[r * MAXD + d]) = vr[f];
    }
    __syncthreads();
    if (j0 + kBc < N) fetch(j0 + kBc);  // overlaps the math below
    float s[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) s[a][b] = 0.f;
#pragma unroll 4
    for (int d = 0; d < MAXD; d += 4) {
      float4 q4[4], k4[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) q4[a] = *reinterpret_cast<const float4*>(&Qs[(ty + 16 * a) * kLd + d]);
#pragma unroll
      for (int b = 0; b < 4; ++b) k4[b] = *reinterpret_cast<const float4*>(&Ks[(tx + 16 * b) * kLd + d]);
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b)
          s[a][b] += q4[a].x * k4[b].x + q4[a].y * k4[b].y + q4[a].z * k4[b].z + q4[a].w * k4[b].w;
    }
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      float mb = -INFINITY;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        if (j0 + tx + 16 * b >= N) s[a][b] = -INFINITY;  // keys past N weigh 0
        mb = fmaxf(mb, s[a][b]);
      }
      for (int off = 8; off > 0; off >>= 1) mb = fmaxf(mb, __shfl_xor_sync(kFull, mb, off));  // row group ty
      const float m_new = fmaxf(m[a], mb);  // finite: key j0 < N exists
      const float alpha = exp2f(m[a] - m_new);
      float sum = 0.f;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        s[a][b] = exp2f(s[a][b] - m_new);
        sum += s[a][b];
      }
      for (int off = 8; off > 0; off >>= 1) sum += __shfl_xor_sync(kFull, sum, off);
      l[a] = l[a] * alpha + sum;
      m[a] = m_new;
#pragma unroll
      for (int b = 0; b < 4 * G; ++b) acc[a][b] *= alpha;
    }
#pragma unroll
    for (int b = 0; b < 4; ++b)
      *reinterpret_cast<float4*>(&PsT[(tx + 16 * b) * kLdp + 4 * ty]) = make_float4(s[0][b], s[1][b], s[2][b], s[3][b]);
    __syncthreads();
#pragma unroll 4
    for (int c = 0; c < kBc; ++c) {
      const float4 p = *reinterpret_cast<const float4*>(&PsT[c * kLdp + 4 * ty]);
      const float pv[4] = {p.x, p.y, p.z, p.w};
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float4 v = *reinterpret_cast<const float4*>(&Vs[c * MAXD + g * 64 + tx * 4]);
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          acc[a][g * 4 + 0] += pv[a] * v.x;
          acc[a][g * 4 + 1] += pv[a] * v.y;
          acc[a][g * 4 + 2] += pv[a] * v.z;
          acc[a][g * 4 + 3] += pv[a] * v.w;
        }
      }
    }
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const int i = i0 + ty + 16 * a;
    if (i >= N) continue;
    const float inv = 1.f / l[a];
    float* o = output + static_cast<size_t>(i) * d_model + col0;
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int c = g * 64 + tx * 4 + b;
        if (c < dk) o[c] = acc[a][g * 4 + b] * inv;
      }
  }
}

template <int MAXD, bool VEC>
void launch(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk, int heads) {
  const size_t bytes = smem_floats<MAXD>() * sizeof(float);
  if (cudaFuncSetAttribute(attention_v5<MAXD, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return;  // the launch would fail: leave the output unwritten
  const float qscale = kLog2e / sqrtf(static_cast<float>(dk));
  attention_v5<MAXD, VEC><<<dim3((N + kBr - 1) / kBr, heads), kThreads, bytes>>>(Q, K, V, output, N, d_model, dk, qscale);
}

template <int MAXD>
void launch_any(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk, int heads) {
  const bool aligned = ((reinterpret_cast<uintptr_t>(Q) | reinterpret_cast<uintptr_t>(K) | reinterpret_cast<uintptr_t>(V)) & 15) == 0;
  if (aligned && dk % 4 == 0 && d_model % 4 == 0) launch<MAXD, true>(Q, K, V, output, N, d_model, dk, heads);
  else launch<MAXD, false>(Q, K, V, output, N, d_model, dk, heads);
}

// Q, K, V, output: N * d_model floats (device). Default stream, no synchronization.
extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (N <= 0 || heads <= 0 || d_model <= 0 || d_model % heads != 0) return;
  const int dk = d_model / heads;
  if (dk <= 64) launch_any<64>(Q, K, V, output, N, d_model, dk, heads);
  else if (dk <= 128) launch_any<128>(Q, K, V, output, N, d_model, dk, heads);
}
