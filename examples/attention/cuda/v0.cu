// Multi-head attention, version 0 (naive): three kernels, one thread per output of each, and the
// whole score matrix in global memory.
//
// out = softmax(Q K^T / sqrt(dk)) V per head. Q, K, V and output are N x d_model float32,
// row-major; head hh uses the columns [hh * dk, hh * dk + dk), dk = d_model / heads.
//   1. scores: one thread per score S[hh][i][j] = Q_i . K_j / sqrt(dk), 16 x 16 threads per block
//      (a warp reads 16 different rows of K: uncoalesced);
//   2. softmax: one thread per row of S, three passes over the row (max, sum of exp, write);
//   3. P V: one thread per output element, a dot product of a row of P with a column of V.
// The scores live in a scratch buffer of heads * N * N floats (134 MB at N = 2048, 8 heads),
// allocated on the first call and grown when a call needs more; it is written and read back in
// full (about 5 x 134 MB of DRAM traffic at that size). Any N, d_model and heads with
// d_model % heads == 0; otherwise solve() returns without writing.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v0.so v0.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kTile = 16;  // scores: 16 x 16 threads per block

__global__ void scores_kernel(const float* Q, const float* K, float* S, int N, int d_model, int dk, float scale) {
  const int j = blockIdx.x * kTile + threadIdx.x;
  const int i = blockIdx.y * kTile + threadIdx.y;
  const int hh = blockIdx.z;
  if (i >= N || j >= N) return;
  const float* q = Q + static_cast<size_t>(i) * d_model + static_cast<size_t>(hh) * dk;
  const float* k = K + static_cast<size_t>(j) * d_model + static_cast<size_t>(hh) * dk;
  float acc = 0.f;
  for (int c = 0; c < dk; ++c) acc += q[c] * k[c];
  S[(static_cast<size_t>(hh) * N + i) * N + j] = acc * scale;
}

// Row r of S (rows = heads * N of N values each) becomes softmax(row), in place.
__global__ void softmax_rows(float* S, int N, int rows) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float* s = S + static_cast<size_t>(r) * N;
  float m = -INFINITY;
  for (int j = 0; j < N; ++j) m = fmaxf(m, s[j]);
  float sum = 0.f;
  for (int j = 0; j < N; ++j) sum += expf(s[j] - m);
  const float inv = 1.f / sum;
  for (int j = 0; j < N; ++j) s[j] = expf(s[j] - m) * inv;
}

// output[i][col] = sum_j P[hh][i][j] * V[j][col], hh = col / dk.
__global__ void pv_kernel(const float* P, const float* V, float* output, int N, int d_model, int dk) {
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<size_t>(N) * d_model) return;
  const int i = static_cast<int>(idx / d_model), col = static_cast<int>(idx % d_model), hh = col / dk;
  const float* p = P + (static_cast<size_t>(hh) * N + i) * N;
  float acc = 0.f;
  for (int j = 0; j < N; ++j) acc += p[j] * V[static_cast<size_t>(j) * d_model + col];
  output[idx] = acc;
}

static float* g_scores = nullptr;  // scratch: heads * N * N floats, kept between calls
static size_t g_capacity = 0;

// Q, K, V, output: N * d_model floats (device). Default stream, no synchronization (except the
// cudaFree / cudaMalloc when the scratch buffer grows).
extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (N <= 0 || heads <= 0 || d_model <= 0 || d_model % heads != 0) return;
  const int dk = d_model / heads;
  const size_t need = static_cast<size_t>(heads) * N * N;
  if (need > g_capacity) {
    if (g_scores) cudaFree(g_scores);
    g_capacity = 0;
    if (cudaMalloc(&g_scores, need * sizeof(float)) != cudaSuccess) {
      g_scores = nullptr;
      return;
    }
    g_capacity = need;
  }
  const float scale = 1.f / sqrtf(static_cast<float>(dk));
  const dim3 block(kTile, kTile), grid((N + kTile - 1) / kTile, (N + kTile - 1) / kTile, heads);
  scores_kernel<<<grid, block>>>(Q, K, g_scores, N, d_model, dk, scale);
  const int rows = heads * N;
  softmax_rows<<<(rows + 127) / 128, 128>>>(g_scores, N, rows);
  const size_t total = static_cast<size_t>(N) * d_model;
  pv_kernel<<<static_cast<unsigned>((total + 255) / 256), 256>>>(g_scores, V, output, N, d_model, dk);
}
