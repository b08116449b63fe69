// Planted for the GPU suite's `onesession` stage: attention v5
// (examples/attention/cuda/v5.cu) with its output scaled by 2 after the fact, so it is timed like v5
// but fails its check. Timed before its check (ref.py still loading), it must lose that timing:
// no timing column, no profile, not in the ncu session's plan.
#include <cuda_runtime.h>

#define solve attention_v5_solve
#include "../../../examples/attention/cuda/v5.cu"
#undef solve

__global__ void kprof_double_all(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  attention_v5_solve(Q, K, V, output, N, d_model, heads);
  int n = N * d_model;
  kprof_double_all<<<(n + 255) / 256, 256>>>(output, n);
}
