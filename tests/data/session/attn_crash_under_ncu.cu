// Planted for the GPU suite's `onesession` stage (issue 17): attention v1
// (examples/attention/cuda/v1.cu), correct and timed like it, that aborts its process when it runs
// under Nsight Compute (ncu's injection sets CUDA_INJECTION64_PATH, and with --nvtx
// NVTX_INJECTION64_PATH, in the profiled process; kprof's own check and timing do not). In
// `kprof run`'s one ncu session it kills the session's runner: it must cost only its own row (the
// versions before it keep their session rows, the ones after it get sessions of their own).
#include <stdlib.h>

#define solve attention_v1_solve
#include "../../../examples/attention/cuda/v1.cu"
#undef solve

extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (getenv("CUDA_INJECTION64_PATH") || getenv("NVTX_INJECTION64_PATH")) abort();
  attention_v1_solve(Q, K, V, output, N, d_model, heads);
}
