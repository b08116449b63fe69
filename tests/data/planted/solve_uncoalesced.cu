// kprof's solve() around planted.cu's `uncoalesced_gather` (defect: PLANTED: uncoalesced), for `kprof profile` in the GPU
// suite's hotlines stage: the hot lines must point at the planted line. input, output: N floats.
#define PLANTED_NO_MAIN
#include "planted.cu"

extern "C" void solve(const float* input, float* output, int N) {
  if (N <= 0) return;
  uncoalesced_gather<<<(N + 255) / 256, 256>>>(input, output, N);
}
