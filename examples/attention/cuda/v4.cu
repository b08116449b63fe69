// Multi-head attention, version 4 (flash-style, register-tiled): 64 x 64 tiles, each thread
// computes a 4 x 4 block of scores and a 4 x (MAXD / 16) block of the output in registers.
//
// out = softmax(Q K^T / sqrt(dk)) V per head. Q, K, V and output are N x d_model float32,
// row-major; head hh uses the columns [hh * dk, hh * dk + dk), dk = d_model / heads.
// Block (64 query rows, head) of 256 threads as 16 x 16 (ty, tx). Shared memory (dynamic,
// 68.6 KB for head dims up to 64, 117 KB up to 128): the query tile and each key tile stored
// transposed (QsT[d][row], KsT[d][key]) so that the 4 rows and 4 keys of a thread are one float4
// each; the V tile row-major; the weights P transposed (PsT[key][row]). Rows padded by 4 floats.
// Per key tile: thread (ty, tx) computes scores of rows ty*4..+3 against keys tx*4..+3 (16 FMAs
// per pair of float4 loads); the 16 threads of a row group reduce its max and sum with
// __shfl_xor_sync (online softmax: m, l per row in registers, rescaled by exp(m_old - m_new));
// writes its weights to PsT; then rescales and accumulates its output block (rows ty*4..+3,
// columns tx*4..+3 of each 64-column group). Global loads are scalar and coalesced; the
// transposed stores into KsT have 4-way bank conflicts.
// Head dims up to 128; larger ones, or d_model % heads != 0: solve() returns without writing.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v4.so v4.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kBr = 64, kBc = 64, kThreads = 256, kPad = 4;
constexpr int kLd = kBr + kPad;  // row length of QsT, KsT and PsT (kBr == kBc)
constexpr unsigned kFull = 0xffffffffu;

template <int MAXD>
constexpr size_t smem_floats() { return 2 * MAXD * kLd + kBc * MAXD + kBc * kLd; }

template <int MAXD>
__global__ void __launch_bounds__(kThreads)
    attention_v4(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk,
                 float scale) {
  constexpr int G = MAXD / 64;  // 64-column groups of the output
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* QsT = smem;                   // [MAXD][kLd]
  float* KsT = QsT + MAXD * kLd;       // [MAXD][kLd]
  float* Vs = KsT + MAXD * kLd;        // [kBc][MAXD]
  float* PsT = Vs + kBc * MAXD;        // [kBc][kLd]
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  const int i0 = blockIdx.x * kBr;
  const size_t col0 = static_cast<size_t>(blockIdx.y) * dk;
  for (int idx = tid; idx < kBr * MAXD; idx += kThreads) {
    const int r = idx / MAXD, d = idx % MAXD;
    QsT[d * kLd + r] = (i0 + r < N && d < dk) ? Q[static_cast<size_t>(i0 + r) * d_model + col0 + d] * scale : 0.f;
  }
  float m[4], l[4], acc[4][4 * G];
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    m[a] = -INFINITY;
    l[a] = 0.f;
#pragma unroll
    for (int b = 0; b < 4 * G; ++b) acc[a][b] = 0.f;
  }
  for (int j0 = 0; j0 < N; j0 += kBc) {
    for (int idx = tid; idx < kBc * MAXD; idx += kThreads) {  // zero past N and dk
      const int r = idx / MAXD, d = idx % MAXD;
      const bool in = j0 + r < N && d < dk;
      const size_t g = static_cast<size_t>(j0 + r) * d_model + col0 + d;
      KsT[d * kLd + r] = in ? K[g] : 0.f;
      Vs[r * MAXD + d] = in ? V[g] : 0.f;
    }
    __syncthreads();
    float s[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) s[a][b] = 0.f;
#pragma unroll 8
    for (int d = 0; d < MAXD; ++d) {
      const float4 qa = *reinterpret_cast<const float4*>(&QsT[d * kLd + ty * 4]);
      const float4 kb = *reinterpret_cast<const float4*>(&KsT[d * kLd + tx * 4]);
      const float qv[4] = {qa.x, qa.y, qa.z, qa.w}, kv[4] = {kb.x, kb.y, kb.z, kb.w};
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) s[a][b] += qv[a] * kv[b];
    }
#pragma unroll
    for (int a = 0; a < 4; ++a) {
      float mb = -INFINITY;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        if (j0 + tx * 4 + b >= N) s[a][b] = -INFINITY;  // keys past N weigh 0
        mb = fmaxf(mb, s[a][b]);
      }
      for (int off = 8; off > 0; off >>= 1) mb = fmaxf(mb, __shfl_xor_sync(kFull, mb, off));  // 16 lanes of row group ty
      const float m_new = fmaxf(m[a], mb);  // finite: key j0 < N exists
      const float alpha = expf(m[a] - m_new);
      float sum = 0.f;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        s[a][b] = expf(s[a][b] - m_new);
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
      *reinterpret_cast<float4*>(&PsT[(tx * 4 + b) * kLd + ty * 4]) = make_float4(s[0][b], s[1][b], s[2][b], s[3][b]);
    __syncthreads();
#pragma unroll 4
    for (int c = 0; c < kBc; ++c) {
      const float4 pa = *reinterpret_cast<const float4*>(&PsT[c * kLd + ty * 4]);
      const float pv[4] = {pa.x, pa.y, pa.z, pa.w};
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float4 vb = *reinterpret_cast<const float4*>(&Vs[c * MAXD + g * 64 + tx * 4]);
        const float vv[4] = {vb.x, vb.y, vb.z, vb.w};
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b = 0; b < 4; ++b) acc[a][g * 4 + b] += pv[a] * vv[b];
      }
    }
    __syncthreads();  // KsT, Vs and PsT are overwritten by the next tile
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const int i = i0 + ty * 4 + a;
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

template <int MAXD>
void launch(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int dk, int heads,
            float scale) {
  const size_t bytes = smem_floats<MAXD>() * sizeof(float);
  if (cudaFuncSetAttribute(attention_v4<MAXD>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) != cudaSuccess)
    return;  // the launch would fail: leave the output unwritten
  attention_v4<MAXD><<<dim3((N + kBr - 1) / kBr, heads), kThreads, bytes>>>(Q, K, V, output, N, d_model, dk, scale);
}

// Q, K, V, output: N * d_model floats (device). Default stream, no synchronization.
extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (N <= 0 || heads <= 0 || d_model <= 0 || d_model % heads != 0) return;
  const int dk = d_model / heads;
  const float scale = 1.f / sqrtf(static_cast<float>(dk));
  if (dk <= 64) launch<64>(Q, K, V, output, N, d_model, dk, heads, scale);
  else if (dk <= 128) launch<128>(Q, K, V, output, N, d_model, dk, heads, scale);
}
