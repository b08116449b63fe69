// BROKEN ON PURPOSE (kprof check must fail: a write past the end of C).
// A correct vector add that also writes C[N .. N+31] (32 floats = 128 bytes past the end, a
// classic off-by-a-block bug). The overrun is small on purpose: it lands in kprof's guard zone
// after C (64 KiB), so it must not cause an illegal address; kprof must name buffer C.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o overflow.so overflow.cu
// Check: kprof check examples/broken/overflow.cu --ref examples/cuda/vector_add/ref.py --N=100000
#include <cuda_runtime.h>

constexpr int kOverrun = 32;  // floats written past the end of C

__global__ void overflow_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
  else if (i < N + kOverrun) C[i] = 12345.0f;  // BUG: past the end (A and B are not read there)
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
  const int total = N + kOverrun;  // BUG: the grid covers N + 32 elements
  overflow_kernel<<<(total + 255) / 256, 256>>>(A, B, C, N);
}
