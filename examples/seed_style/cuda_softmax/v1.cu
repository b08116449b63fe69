// Row softmax over an N x D float32 matrix, version 1: one warp per row, online softmax.
//
// Launch: 128 threads (4 warps) per block, one warp per row, grid ceil(N / 4). Pass 1: each
// lane keeps a running max m and a running sum s of exp(x - m) over its strided columns
// (when m grows, s is rescaled by exp(m_old - m_new)); the 32 lanes merge their (m, s) with
// __shfl_xor_sync: no shared memory, no barriers. Pass 2 writes exp(x - m) / s. Two passes
// over the row instead of three. Any N and D.
//
// `input` is a plain `float*` (only read).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v1.so v1.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kWarpsPerBlock = 4;

// Merges (mo, so) into the running (m, s); an empty side is (-inf, 0).
__device__ __forceinline__ void online_merge(float& m, float& s, float mo, float so) {
  const float mn = fmaxf(m, mo);
  if (mn == -INFINITY) return;  // both empty: avoid exp(-inf - -inf) = NaN
  s = s * expf(m - mn) + so * expf(mo - mn);
  m = mn;
}

__global__ void softmax_v1(float* input, float* output, int N, int D) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= N) return;  // the whole warp leaves together: the shuffles stay full-warp
  const float* in = input + static_cast<size_t>(row) * D;
  float* out = output + static_cast<size_t>(row) * D;
  float m = -INFINITY, s = 0.f;
  for (int c = lane; c < D; c += 32) online_merge(m, s, in[c], 1.f);
  for (int off = 16; off > 0; off >>= 1) {
    const float mo = __shfl_xor_sync(0xffffffffu, m, off);
    const float so = __shfl_xor_sync(0xffffffffu, s, off);
    online_merge(m, s, mo, so);
  }
  const float inv = 1.f / s;
  for (int c = lane; c < D; c += 32) out[c] = expf(in[c] - m) * inv;
}

// input, output: N*D floats (device, row-major). Default stream, no synchronization.
extern "C" void solve(float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  const int blocks = (N + kWarpsPerBlock - 1) / kWarpsPerBlock;
  softmax_v1<<<blocks, 32 * kWarpsPerBlock>>>(input, output, N, D);
}
