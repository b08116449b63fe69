// Planted for the GPU suite's `onesession` stage: attention v1
// (examples/attention/cuda/v1.cu), correct and timed like it, that aborts its process when it runs
// under Nsight Compute: ncu's injection library is mapped into the profiled process (a library
// of ncu's target/ folder, or named *injection*, under a path holding "nsight-compute"; kprof's own
// ncu_report import, from extras/python, is not one). The injection's variables CUDA_INJECTION64_PATH / NVTX_INJECTION64_PATH need not stay
// set (ncu 2025.3 clears the first once loaded). kprof's own check and timing load none of it. In
// `kprof run`'s one ncu session it kills the session's runner: it must cost only its own row (the
// versions before it keep their session rows, the ones after it get sessions of their own, where
// it aborts again).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define solve attention_v1_solve
#include "../../../examples/attention/cuda/v1.cu"
#undef solve

static int under_ncu(void) {
  if (getenv("CUDA_INJECTION64_PATH") || getenv("NVTX_INJECTION64_PATH")) return 1;
  FILE* maps = fopen("/proc/self/maps", "r");
  if (!maps) return 0;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, maps))
    found = strstr(line, "nsight-compute") && (strstr(line, "/target/") || strstr(line, "njection"));
  fclose(maps);
  return found;
}

extern "C" void solve(const float* Q, const float* K, const float* V, float* output, int N, int d_model, int heads) {
  if (under_ncu()) abort();
  attention_v1_solve(Q, K, V, output, N, d_model, heads);
}
