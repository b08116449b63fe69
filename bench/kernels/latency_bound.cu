// LATENCY-BOUND by construction: far too little parallelism for the GPU.
//
// y[i] = 2 * x[i] + 1, but the whole array is walked by ONE block of 256 threads (8 warps on
// one of the H200's 132 SMs, grid-stride loop). Each load waits ~hundreds of cycles for DRAM
// and 8 warps cannot cover that: both SM SOL and memory SOL stay near 0-1%, waves per SM
// ~0.001, and the stall reasons are dominated by long scoreboard (waiting on global loads).
// The same shape as the `tiny` ncu fixture (one block of 128 threads).
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o latency_bound.so latency_bound.cu
// Profile: kprof profile bench/kernels/latency_bound.cu --N=1048576
#include <cuda_runtime.h>

__global__ void one_block_walk(const float* __restrict__ x, float* __restrict__ y, int N) {
  for (int i = threadIdx.x; i < N; i += blockDim.x) y[i] = fmaf(x[i], 2.f, 1.f);
}

// x: N floats (input, device); y: N floats (output, device). Default stream, no sync.
extern "C" void solve(const float* x, float* y, int N) {
  if (N <= 0) return;
  one_block_walk<<<1, 256>>>(x, y, N);  // deliberately one block
}
