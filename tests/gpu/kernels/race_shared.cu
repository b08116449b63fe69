// A planted shared-memory race for `kprof check --sanitize racecheck` (the GPU suite's sanitize
// stage, tests/gpu/scenarios.sh): y = x with every 256-float block reversed, through shared memory,
// WITHOUT the __syncthreads() between the shared write and the read. Thread t reads the element
// thread 255 - t wrote, usually in another warp: a read-after-write race on __shared__ memory. The
// results are often still right (the warps of a block happen to run in order), so the comparison
// alone may pass; compute-sanitizer's racecheck reports it every time.
//
// x, y: n floats (n a multiple of 256; ref: race_shared_ref.py).
// Build: kprof build race_shared.cu (nvcc -O3 -shared -Xcompiler -fPIC -lineinfo).
#include <cuda_runtime.h>

constexpr int kBlock = 256;

__global__ void reverse_blocks_racy(const float* __restrict__ x, float* __restrict__ y, int n) {
  __shared__ float tile[kBlock];
  const int base = blockIdx.x * kBlock;
  const int t = threadIdx.x;
  tile[t] = base + t < n ? x[base + t] : 0.0f;
  // PLANTED: race. The __syncthreads() that belongs here is missing.
  if (base + t < n) y[base + t] = tile[kBlock - 1 - t];
}

extern "C" void solve(const float* x, float* y, int n) {
  if (n <= 0) return;
  reverse_blocks_racy<<<(n + kBlock - 1) / kBlock, kBlock>>>(x, y, n);
}
