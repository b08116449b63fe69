// Row softmax over an N x D float32 matrix, version 2: one block per row, the row kept in
// registers, so the input is read from global memory exactly once.
//
// Launch: N blocks of 256 threads. Thread t holds the row's columns t, t + 256, ... in VALS
// registers (VALS = 4, 8, 16 or 32, the smallest with 256 * VALS >= D; columns past D hold
// -inf). The max and the sum of exp(x - max) are reduced with __shfl_xor_sync inside each
// warp and across the 8 warps through 8 floats of shared memory (2 barriers per reduction
// instead of v0's 9). The exponentials are kept in the same registers and written once.
// Rows longer than 256 * 32 = 8192 columns use a plain three-pass loop (as v0). Any N and D.
//
// `input` is a plain `float*` (only read).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v2.so v2.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 256, kWarps = kThreads / 32;

// Max or sum of one value per thread over the block; every thread gets the same result.
// `sh`: kWarps floats of shared memory. Called by all threads of the block.
__device__ float block_reduce(float v, bool is_max, float* sh) {
  for (int off = 16; off > 0; off >>= 1) {
    const float o = __shfl_xor_sync(0xffffffffu, v, off);
    v = is_max ? fmaxf(v, o) : v + o;
  }
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = sh[0];
  for (int w = 1; w < kWarps; ++w) r = is_max ? fmaxf(r, sh[w]) : r + sh[w];
  __syncthreads();  // sh is reused by the next reduction
  return r;
}

template <int VALS>
__global__ void __launch_bounds__(kThreads) softmax_v2(float* input, float* output, int D) {
  __shared__ float sh[kWarps];
  const float* in = input + static_cast<size_t>(blockIdx.x) * D;
  float* out = output + static_cast<size_t>(blockIdx.x) * D;
  float v[VALS];
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < VALS; ++i) {
    const int c = threadIdx.x + i * kThreads;
    v[i] = c < D ? in[c] : -INFINITY;
    m = fmaxf(m, v[i]);
  }
  m = block_reduce(m, true, sh);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < VALS; ++i) {
    v[i] = expf(v[i] - m);  // padding: exp(-inf) = 0
    s += v[i];
  }
  const float inv = 1.f / block_reduce(s, false, sh);
#pragma unroll
  for (int i = 0; i < VALS; ++i) {
    const int c = threadIdx.x + i * kThreads;
    if (c < D) out[c] = v[i] * inv;
  }
}

// Rows longer than 256 * 32: three passes over the row in global memory.
__global__ void __launch_bounds__(kThreads) softmax_long_rows(float* input, float* output, int D) {
  __shared__ float sh[kWarps];
  const float* in = input + static_cast<size_t>(blockIdx.x) * D;
  float* out = output + static_cast<size_t>(blockIdx.x) * D;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < D; c += kThreads) m = fmaxf(m, in[c]);
  m = block_reduce(m, true, sh);
  float s = 0.f;
  for (int c = threadIdx.x; c < D; c += kThreads) s += expf(in[c] - m);
  const float inv = 1.f / block_reduce(s, false, sh);
  for (int c = threadIdx.x; c < D; c += kThreads) out[c] = expf(in[c] - m) * inv;
}

// input, output: N*D floats (device, row-major). Default stream, no synchronization.
extern "C" void solve(float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  const int per_thread = (D + kThreads - 1) / kThreads;
  if (per_thread <= 4) softmax_v2<4><<<N, kThreads>>>(input, output, D);
  else if (per_thread <= 8) softmax_v2<8><<<N, kThreads>>>(input, output, D);
  else if (per_thread <= 16) softmax_v2<16><<<N, kThreads>>>(input, output, D);
  else if (per_thread <= 32) softmax_v2<32><<<N, kThreads>>>(input, output, D);
  else softmax_long_rows<<<N, kThreads>>>(input, output, D);
}
