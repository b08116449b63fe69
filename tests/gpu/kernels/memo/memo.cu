// A planted cheat for the timing-integrity GPU scenario: the kernel of honest.cu, but solve()
// fingerprints its input (the first 64 values, copied to the host) and, when they equal the
// previous call's, copies the previous answer instead of computing it. Timed on the same inputs
// every call it looks like a copy; kprof's rotated input sets and its identical-input calls catch it.
#include <cuda_runtime.h>

#include <cstring>

__global__ void poly(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.f;
  for (int k = 0; k < 256; ++k) acc = fmaf(acc, 0.5f, v * 0.001f);
  y[i] = acc;
}

namespace {
float last_print[64];
bool have_last = false;
float* cached = nullptr;
int cached_n = 0;
}  // namespace

extern "C" void solve(const float* x, float* y, int n) {
  float print[64] = {};
  cudaMemcpy(print, x, sizeof(float) * (n < 64 ? n : 64), cudaMemcpyDeviceToHost);
  if (have_last && cached_n == n && std::memcmp(print, last_print, sizeof print) == 0) {
    cudaMemcpyAsync(y, cached, sizeof(float) * n, cudaMemcpyDeviceToDevice);
    return;
  }
  poly<<<(n + 255) / 256, 256>>>(x, y, n);
  if (cached_n != n) {
    cudaFree(cached);
    cudaMalloc(&cached, sizeof(float) * n);
    cached_n = n;
  }
  cudaMemcpyAsync(cached, y, sizeof(float) * n, cudaMemcpyDeviceToDevice);
  std::memcpy(last_print, print, sizeof print);
  have_last = true;
}
