// A CORRECT kernel with two outputs, checked against a reference that is not (see
// ref_returns_one.py): row softmax AND log-softmax of an N x D float32 matrix in one pass,
// as a cross-entropy forward computes them.
//   solve(float* input, float* probs, float* logprobs, int N, int D)
// One warp per row (4 rows per 128-thread block): an online (max, sum of exp) pass merged with
// __shfl_xor_sync, then probs = exp(x - max) / sum and logprobs = x - max - log(sum).
// All three pointers are non-const; the kernel changes probs and logprobs (same size, N*D).
// A reference that returns ONE new tensor cannot say which of the two it is: kprof must ask
// for a dict {"probs": ..., "logprobs": ...} (ref_dict.py, which passes).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o softmax_logsoftmax.so softmax_logsoftmax.cu
// Check: kprof check examples/seed_style/broken/softmax_logsoftmax.cu --ref examples/seed_style/broken/ref_returns_one.py
//          --N=4096 --D=1000 --size input=N*D --size probs=N*D --size logprobs=N*D
#include <cuda_runtime.h>
#include <math.h>

constexpr int kWarpsPerBlock = 4;

// Merges (mo, so) into the running (m, s); an empty side is (-inf, 0).
__device__ __forceinline__ void online_merge(float& m, float& s, float mo, float so) {
  const float mn = fmaxf(m, mo);
  if (mn == -INFINITY) return;
  s = s * expf(m - mn) + so * expf(mo - mn);
  m = mn;
}

__global__ void softmax_logsoftmax(float* input, float* probs, float* logprobs, int N, int D) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= N) return;
  const size_t base = static_cast<size_t>(row) * D;
  float m = -INFINITY, s = 0.f;
  for (int c = lane; c < D; c += 32) online_merge(m, s, input[base + c], 1.f);
  for (int off = 16; off > 0; off >>= 1) {
    const float mo = __shfl_xor_sync(0xffffffffu, m, off);
    const float so = __shfl_xor_sync(0xffffffffu, s, off);
    online_merge(m, s, mo, so);
  }
  const float inv = 1.f / s, log_s = logf(s);
  for (int c = lane; c < D; c += 32) {
    const float z = input[base + c] - m;
    probs[base + c] = expf(z) * inv;
    logprobs[base + c] = z - log_s;
  }
}

extern "C" void solve(float* input, float* probs, float* logprobs, int N, int D) {
  if (N <= 0 || D <= 0) return;
  const int blocks = (N + kWarpsPerBlock - 1) / kWarpsPerBlock;
  softmax_logsoftmax<<<blocks, 32 * kWarpsPerBlock>>>(input, probs, logprobs, N, D);
}
