// Row softmax over an N x D float32 matrix, version 0: one block per row, shared-memory trees.
//
// Launch: N blocks of 256 threads. The threads stride over their row (coalesced), each keeps
// a partial max, the block combines the 256 partials in a shared-memory tree (8 levels, a
// __syncthreads each); the same for the sum of exp(x - max); then every element is written as
// exp(x - max) / sum. Three passes over the row in global memory (max, sum, write). Any D.
//
// `input` is a plain `float*`, as in many kernels written for the original workflow: it is
// only read, and kprof treats it as an input because neither the kernel nor ref.py changes it.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v0.so v0.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 256;  // a power of two: the tree halves it

// Reduces one value per thread over the block (max or sum); every thread gets the result.
// `sh`: kThreads floats of shared memory. Called by all threads of the block.
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

__global__ void softmax_v0(float* input, float* output, int D) {
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
extern "C" void solve(float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  softmax_v0<<<N, kThreads>>>(input, output, D);
}
