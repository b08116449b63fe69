// Row softmax over an N x D row-major matrix:
//   output[r, c] = exp(input[r, c] - max_r) / sum_c' exp(input[r, c'] - max_r)
// Numerically stable: the row maximum is subtracted before exp, so no overflow for large inputs.
//
// Launch: one block of 256 threads per row (grid = N). Each thread strides over the row's D
// columns (so any D works, not only multiples of 256); the row max and the row sum are each
// reduced with warp shuffles, then across the block's 8 warps through shared memory.
//
// Buffers are N*D floats: kprof needs --size input=N*D --size output=N*D (the seed's default for
// two dimensions is also the product, but say it explicitly).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o softmax.so softmax.cu
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Max (is_max) or sum of `v` over the whole block; every thread gets the result.
// `scratch` holds kWarps floats of shared memory; the block must call this uniformly.
__device__ float block_reduce(float v, bool is_max, float* scratch) {
  for (int off = 16; off > 0; off >>= 1) {
    float o = __shfl_xor_sync(0xffffffffu, v, off);
    v = is_max ? fmaxf(v, o) : v + o;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < kWarps; ++w) v = is_max ? fmaxf(v, scratch[w]) : v + scratch[w];
  __syncthreads();  // scratch is reused by the next reduction
  return v;
}

__global__ void softmax_kernel(const float* __restrict__ input, float* __restrict__ output, int D) {
  __shared__ float scratch[kWarps];
  const size_t base = static_cast<size_t>(blockIdx.x) * D;
  const float* in = input + base;
  float* out = output + base;

  float m = -INFINITY;
  for (int c = threadIdx.x; c < D; c += kThreads) m = fmaxf(m, in[c]);
  m = block_reduce(m, true, scratch);

  float s = 0.f;
  for (int c = threadIdx.x; c < D; c += kThreads) s += expf(in[c] - m);
  s = block_reduce(s, false, scratch);

  const float inv = 1.f / s;
  for (int c = threadIdx.x; c < D; c += kThreads) out[c] = expf(in[c] - m) * inv;
}

// input: N*D floats (device, row-major); output: N*D floats (device). N rows, D columns.
// Launches on the default stream, no synchronization.
extern "C" void solve(const float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  softmax_kernel<<<N, kThreads>>>(input, output, D);
}
