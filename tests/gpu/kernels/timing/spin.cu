// One block that spins for `kcycles` thousand SM clock cycles (clock64), then writes it out: a
// kernel of a chosen length for the timing GPU scenario (sample counts and noise of a 2 us, a
// 100 us and a 10 ms kernel; tests/gpu/scenarios.sh stage integrity).
#include <cuda_runtime.h>

__global__ void spin(float* out, long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) out[0] = static_cast<float>(cycles);
}

extern "C" void solve(float* out, int kcycles) { spin<<<1, 32>>>(out, 1000LL * kcycles); }
