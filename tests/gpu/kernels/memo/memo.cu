// A planted cheat for the timing-integrity GPU scenario: the kernel of honest.cu, but it memoizes
// its output on an input fingerprint (the first 64 values), all on the device so that no host
// synchronisation blurs the timing: check_print sets `hit` when the fingerprint equals the previous
// call's; poly_or_copy then copies the cached answer (a hit) or computes it and caches it (a miss);
// save_print stores the fingerprint. Timed on the same inputs every call it runs at copy speed;
// kprof's rotated input sets and its identical-input calls catch it (three kernels every call, so
// the kernel-count checks see nothing unusual).
#include <cuda_runtime.h>

namespace {
constexpr int kPrint = 64;
__device__ float g_print[kPrint];
__device__ int g_have_print = 0;
__device__ int g_hit = 0;
float* g_cached = nullptr;
int g_cached_n = 0;
}  // namespace

__global__ void check_print(const float* __restrict__ x, int n) {
  __shared__ int same;
  if (threadIdx.x == 0) same = g_have_print;
  __syncthreads();
  int m = n < kPrint ? n : kPrint;
  if (threadIdx.x < m && x[threadIdx.x] != g_print[threadIdx.x]) atomicAnd(&same, 0);
  __syncthreads();
  if (threadIdx.x == 0) g_hit = same;
}

__global__ void poly_or_copy(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ cached, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (g_hit) {
    y[i] = cached[i];
    return;
  }
  float v = x[i], acc = 0.f;
  for (int k = 0; k < 256; ++k) acc = fmaf(acc, 0.5f, v * 0.001f);
  y[i] = acc;
  cached[i] = acc;
}

__global__ void save_print(const float* __restrict__ x, int n) {
  int m = n < kPrint ? n : kPrint;
  if (threadIdx.x < m) g_print[threadIdx.x] = x[threadIdx.x];
  if (threadIdx.x == 0) g_have_print = 1;
}

extern "C" void solve(const float* x, float* y, int n) {
  if (n <= 0) return;
  if (g_cached_n != n) {  // first call at this size: nothing cached yet
    cudaFree(g_cached);
    cudaMalloc(&g_cached, sizeof(float) * n);
    g_cached_n = n;
    int zero = 0;
    cudaMemcpyToSymbol(g_have_print, &zero, sizeof zero);
  }
  check_print<<<1, kPrint>>>(x, n);
  poly_or_copy<<<(n + 255) / 256, 256>>>(x, y, g_cached, n);
  save_print<<<1, kPrint>>>(x, n);
}
