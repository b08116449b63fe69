// Row softmax, version 1: one block per row, shared-memory tree reductions.
//
// Launch: N blocks of 256 threads. Threads stride over the row (coalesced loads), each keeps a
// partial max / sum, and the block combines the 256 partials with the classic shared-memory tree
// (128, 64, ..., 1 active threads, a __syncthreads per level). Correct for any D (also D < 256:
// idle threads contribute -inf / 0). Three passes over the row: max, sum, write.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o v1.so v1.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 256;  // power of two: the tree halves it

// Tree reduction of one value per thread over the block; every thread gets the result.
// `sh` is kThreads floats of shared memory. Called uniformly by the whole block.
__device__ float tree_reduce(float v, bool is_max, float* sh) {
  const int t = threadIdx.x;
  sh[t] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (t < s) sh[t] = is_max ? fmaxf(sh[t], sh[t + s]) : sh[t] + sh[t + s];
    __syncthreads();
  }
  const float r = sh[0];
  __syncthreads();  // sh is reused by the next reduction
  return r;
}

__global__ void softmax_v1(const float* __restrict__ input, float* __restrict__ output, int D) {
  __shared__ float sh[kThreads];
  const float* in = input + static_cast<size_t>(blockIdx.x) * D;
  float* out = output + static_cast<size_t>(blockIdx.x) * D;

  float m = -INFINITY;
  for (int c = threadIdx.x; c < D; c += kThreads) m = fmaxf(m, in[c]);
  m = tree_reduce(m, true, sh);

  float s = 0.f;
  for (int c = threadIdx.x; c < D; c += kThreads) s += expf(in[c] - m);
  s = tree_reduce(s, false, sh);

  const float inv = 1.f / s;
  for (int c = threadIdx.x; c < D; c += kThreads) out[c] = expf(in[c] - m) * inv;
}

// input, output: N*D floats (device, row-major). Default stream, no synchronization.
extern "C" void solve(const float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  softmax_v1<<<N, kThreads>>>(input, output, D);
}
