// COMPUTE-BOUND by construction: long dependent FMA chains, several independent ones per thread.
//
// y[i] = f^4096(x[i]) with f(x) = fmaf(x, 0.999f, 0.001f): 4096 FMAs (8192 FLOP) per element
// for 8 bytes of traffic (~1000 FLOP/byte, far above the ridge point). Each thread owns 4
// elements and interleaves their 4 chains, so the FMA pipe always has independent work
// (4-cycle FMA latency hidden by 4 chains x many warps): expect SM SOL high (FMA pipe busy,
// issue slots well used) and memory SOL ~0.
// Launch: 256 threads per block, each block 1024 elements (element base + k*256, k = 0..3, so
// loads stay coalesced), grid = ceil(N / 1024). Any N works (each element is guarded).
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o compute_bound.so compute_bound.cu
// Profile: kprof profile bench/kernels/compute_bound.cu --N=4194304
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kChains = 4;      // independent chains (elements) per thread: ILP
constexpr int kIters = 4096;    // dependent FMAs per chain
constexpr float kA = 0.999f, kB = 0.001f;

__global__ void fma_chains(const float* __restrict__ x, float* __restrict__ y, int N) {
  const size_t base = static_cast<size_t>(blockIdx.x) * kThreads * kChains + threadIdx.x;
  float v[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    const size_t i = base + static_cast<size_t>(k) * kThreads;
    v[k] = i < static_cast<size_t>(N) ? x[i] : 0.f;
  }
#pragma unroll 8
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) v[k] = fmaf(v[k], kA, kB);
  }
#pragma unroll
  for (int k = 0; k < kChains; ++k) {
    const size_t i = base + static_cast<size_t>(k) * kThreads;
    if (i < static_cast<size_t>(N)) y[i] = v[k];
  }
}

// x: N floats (input, device); y: N floats (output, device). Default stream, no sync.
extern "C" void solve(const float* x, float* y, int N) {
  if (N <= 0) return;
  const int per_block = kThreads * kChains;
  fma_chains<<<(N + per_block - 1) / per_block, kThreads>>>(x, y, N);
}
