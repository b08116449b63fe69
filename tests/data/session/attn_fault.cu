// Planted for the GPU suite's `onesession` stage: a kernel with attention's signature
// that writes far outside `output` (an illegal address: the CUDA context is lost). Timed before its
// check (ref.py still loading), it becomes a CheckError row; the versions timed before it cannot be
// checked any more ("timed but not checked") and the ones after it do not run.
#include <cuda_runtime.h>

__global__ void kprof_write_far(float* out) { out[(size_t{1} << 40) + threadIdx.x] = 1.0f; }

extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  (void)Q;
  (void)K;
  (void)V;
  (void)N;
  (void)d_model;
  (void)heads;
  kprof_write_far<<<1, 32>>>(output);
}
