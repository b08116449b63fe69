// MEMORY-BOUND by construction: a vectorised streaming scale, y[i] = 2 * x[i], N floats.
//
// Each thread moves one float4 (16 bytes in, 16 bytes out) and does 4 multiplies: 0.125 FLOP
// per byte, far below the H200's ridge point (~67 TFLOP/s / 4.8 TB/s ~ 14 FLOP/byte), so DRAM
// bandwidth is the limit: expect DRAM throughput (memory SOL) ~80-90% and SM SOL low.
// Launch: ceil(N/4 / 256) blocks of 256 threads (64 Mi floats: 65536 blocks, ~62 waves of
// 8 blocks x 132 SMs); the first N % 4 threads also do the scalar tail. Unaligned pointers fall
// back to a scalar kernel.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o memory_bound.so memory_bound.cu
// Profile: kprof profile bench/kernels/memory_bound.cu --N=67108864
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void scale_vec4(const float4* __restrict__ x4, float4* __restrict__ y4,
                           const float* __restrict__ x, float* __restrict__ y, int n4, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 v = x4[i];
    y4[i] = make_float4(2.f * v.x, 2.f * v.y, 2.f * v.z, 2.f * v.w);
  }
  const long long t = 4LL * n4 + i;  // tail: at most 3 elements, done by threads 0..2
  if (t < N) y[t] = 2.f * x[t];
}

__global__ void scale_scalar(const float* __restrict__ x, float* __restrict__ y, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) y[i] = 2.f * x[i];
}

// x: N floats (input, device); y: N floats (output, device). Default stream, no sync.
extern "C" void solve(const float* x, float* y, int N) {
  if (N <= 0) return;
  const int threads = 256;
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  if (aligned) {
    const int n4 = N / 4;
    const int blocks = n4 > 0 ? (n4 + threads - 1) / threads : 1;
    scale_vec4<<<blocks, threads>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y),
                                    x, y, n4, N);
  } else {
    scale_scalar<<<(N + threads - 1) / threads, threads>>>(x, y, N);
  }
}
