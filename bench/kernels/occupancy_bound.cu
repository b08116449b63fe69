// OCCUPANCY-BOUND by construction: a huge shared-memory tile limits the SM to 4 resident warps.
//
// y[i] = 2 * x[i] + 1, staged through shared memory in tiles of 25600 floats (100 KiB of
// dynamic shared memory per block, like a tile sized for a bigger kernel). Blocks have only 64
// threads (2 warps). An H200 SM has at most 228 KiB of shared memory, so 2 blocks fit per SM
// (ncu: "Block Limit Shared Mem" = 2): 4 warps of the 64 an SM can hold, a theoretical
// occupancy of 6.25%. There are plenty of blocks (64 Mi floats: 2622 blocks, ~10 waves on 132
// SMs), yet the streaming work, which needs many loads in flight to reach DRAM bandwidth, gets
// too few warps to hide the memory latency: expect low theoretical (and achieved) occupancy with
// the shared-memory limiter named, memory SOL well below the memory-bound kernel's and
// long-scoreboard stalls.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o occupancy_bound.so occupancy_bound.cu
// Profile: kprof profile bench/kernels/occupancy_bound.cu --N=67108864
#include <cuda_runtime.h>

constexpr int kThreads = 64;
constexpr int kTile = 25600;                      // floats per block
constexpr int kSmemBytes = kTile * sizeof(float);  // 100 KiB

__global__ void staged_scale(const float* __restrict__ x, float* __restrict__ y, int N) {
  extern __shared__ float tile[];
  const size_t start = static_cast<size_t>(blockIdx.x) * kTile;
  const int count = static_cast<int>(min(static_cast<size_t>(kTile), static_cast<size_t>(N) - start));
  for (int j = threadIdx.x; j < count; j += kThreads) tile[j] = x[start + j];
  __syncthreads();
  for (int j = threadIdx.x; j < count; j += kThreads) y[start + j] = fmaf(tile[j], 2.f, 1.f);
}

// x: N floats (input, device); y: N floats (output, device). Default stream, no sync.
// Raises the kernel's dynamic shared-memory limit (above the 48 KiB default) and asks for the
// largest shared-memory carveout: host-side attribute calls, no synchronization.
extern "C" void solve(const float* x, float* y, int N) {
  if (N <= 0) return;
  cudaFuncSetAttribute(staged_scale, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  cudaFuncSetAttribute(staged_scale, cudaFuncAttributePreferredSharedMemoryCarveout,
                       cudaSharedmemCarveoutMaxShared);
  const int blocks = (N + kTile - 1) / kTile;
  staged_scale<<<blocks, kThreads, kSmemBytes>>>(x, y, N);
}
