// The pytest gate's planted kernel (tests/gpu/gate/test_gate.py, issue 41): one block that spins
// for `kcycles` thousand SM clock cycles, SLOWDOWN_PCT percent longer when built with
// -DSLOWDOWN_PCT=10 (the planted 10%-slower version), and writes the nominal length to out[0].
#include <cuda_runtime.h>

#ifndef SLOWDOWN_PCT
#define SLOWDOWN_PCT 0
#endif

__global__ void spin_gate(float* out, long long cycles, long long nominal) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) out[0] = static_cast<float>(nominal);
}

extern "C" void solve(float* out, int kcycles) {
  long long nominal = 1000LL * kcycles;
  spin_gate<<<1, 32>>>(out, nominal * (100 + SLOWDOWN_PCT) / 100, nominal);
}
