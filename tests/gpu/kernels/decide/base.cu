// The baseline of the keep-or-revert GPU scenario (tests/gpu/scenarios.sh, stage decide): y[i] =
// the fixed point of acc = 0.5 acc + 0.001 x[i] after KPROF_STEPS dependent FMAs (about 0.1 ms at
// n = 4 Mi on an H200; the time is nearly proportional to the steps). slower.cu and faster.cu plant
// 3% more or fewer steps; the answer is the same (it converges after about 40 steps): ../memo/ref.py.
#include <cuda_runtime.h>

#ifndef KPROF_STEPS
#define KPROF_STEPS 256
#endif

__global__ void poly_steps(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.f;
  // Not unrolled, in every version alike: 256 steps would be unrolled whole and 247 or 265 not,
  // and the planted difference would then be the code's shape, not the 3.5% more or fewer steps.
#pragma unroll 1
  for (int k = 0; k < KPROF_STEPS; ++k) acc = fmaf(acc, 0.5f, v * 0.001f);
  y[i] = acc;
}

extern "C" void solve(const float* x, float* y, int n) { poly_steps<<<(n + 255) / 256, 256>>>(x, y, n); }
