// Row softmax, version 0: naive, one thread per row.
//   output[r, c] = exp(input[r, c] - max_r) / sum_c' exp(input[r, c'] - max_r)
//
// Launch: ceil(N / 256) blocks of 256 threads; thread r walks its whole row three times (max,
// sum, write). Correct for any N and D, but slow on purpose: neighbouring threads read addresses
// D floats apart (uncoalesced: one 32-byte sector per thread per load, ~32 sectors per request),
// and with N = 4096 there are only 16 blocks (waves per SM far below one).
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o v0.so v0.cu
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_v0(const float* __restrict__ input, float* __restrict__ output, int N, int D) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= N) return;
  const float* in = input + static_cast<size_t>(r) * D;
  float* out = output + static_cast<size_t>(r) * D;
  float m = -INFINITY;
  for (int c = 0; c < D; ++c) m = fmaxf(m, in[c]);
  float s = 0.f;
  for (int c = 0; c < D; ++c) s += expf(in[c] - m);
  const float inv = 1.f / s;
  for (int c = 0; c < D; ++c) out[c] = expf(in[c] - m) * inv;
}

// input, output: N*D floats (device, row-major). Default stream, no synchronization.
extern "C" void solve(const float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  const int threads = 256;
  softmax_v0<<<(N + threads - 1) / threads, threads>>>(input, output, N, D);
}
