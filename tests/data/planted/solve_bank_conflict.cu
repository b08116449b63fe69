// kprof's solve() around planted.cu's `bank_conflict` (defect: PLANTED: bank_conflict), for `kprof profile` in the GPU
// suite's hotlines stage: the hot lines must point at the planted line. input, output: N floats.
#define PLANTED_NO_MAIN
#include "planted.cu"

extern "C" void solve(const float* input, float* output, int N) {
  if (N <= 0) return;
  bank_conflict<<<N / 1024, 1024>>>(input, output, N);
}
