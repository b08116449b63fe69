// Naive tiled matrix multiply, fp32, row-major: C[M, N] = A[M, K] @ B[K, N].
//
// Launch: 16 x 16 threads per block, grid (ceil(N/16), ceil(M/16)); each thread computes one
// C element. A and B are staged through 16 x 16 shared-memory tiles; tiles that run past M, K
// or N are zero-padded, so every size works (not only multiples of 16). Limits: M <= 16 * 65535.
//
// Buffers: kprof needs --size A=M*K --size B=K*N --size C=M*N (the seed's default for several
// dimensions, the product of the two largest, fits none of them in general).
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o matmul.so matmul.cu
#include <cuda_runtime.h>

constexpr int kTile = 16;

__global__ void matmul_kernel(const float* __restrict__ A, const float* __restrict__ B,
                              float* __restrict__ C, int M, int K, int N) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    const int ka = k0 + threadIdx.x;  // column of A this thread loads
    const int kb = k0 + threadIdx.y;  // row of B this thread loads
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[static_cast<size_t>(row) * K + ka] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[static_cast<size_t>(kb) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<size_t>(row) * N + col] = acc;
}

// A: M*K floats, B: K*N floats (inputs, device, row-major); C: M*N floats (output, device).
// Launches on the default stream, no synchronization.
extern "C" void solve(const float* A, const float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  dim3 block(kTile, kTile);
  dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  matmul_kernel<<<grid, block>>>(A, B, C, M, K, N);
}
