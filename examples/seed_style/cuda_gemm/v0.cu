// Float32 GEMM, version 0 (naive): C[M, N] = A[M, K] @ B[K, N], row-major, one thread per
// element of C.
//
// Launch: 32 x 8 threads per block, grid (ceil(N / 32), ceil(M / 8)). threadIdx.x walks the
// columns, so a warp reads 32 consecutive floats of a B row (coalesced) and one A element
// (broadcast), and stores 32 consecutive floats of C. Every A and B element is re-read from
// global memory (L1/L2) by each thread that needs it: K loads of each per output element.
// Guards on row and col: any M, K, N work.
//
// All pointers are plain `float*`, as in many kernels written for the original workflow; kprof
// treats A and B as inputs because neither this kernel nor ref.py changes them.
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -lineinfo -o v0.so v0.cu
#include <cuda_runtime.h>

__global__ void gemm_v0(float* A, float* B, float* C, int M, int K, int N) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + static_cast<size_t>(row) * K;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += a[k] * B[static_cast<size_t>(k) * N + col];
  C[static_cast<size_t>(row) * N + col] = acc;
}

// A: M*K floats, B: K*N floats, C: M*N floats (device, row-major). Default stream, no sync.
extern "C" void solve(float* A, float* B, float* C, int M, int K, int N) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8);
  gemm_v0<<<grid, block>>>(A, B, C, M, K, N);
}
