// out[k] = alpha * (h[k] + b[k] + d[k] + i[k]) in float: half, bfloat16, double and int inputs, a
// float scalar and a long count, to check every type arrives intact (tests/gpu/test_so_kernel.cpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void mixed_kernel(const __half* h, const __nv_bfloat16* b, const double* d, const int* i, float* out,
                             float alpha, long n) {
  long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (k < n) {
    float s = __half2float(h[k]) + __bfloat162float(b[k]);
    s += (float)d[k];
    s += (float)i[k];
    out[k] = alpha * s;
  }
}

extern "C" void solve(const __half* h, const __nv_bfloat16* b, const double* d, const int* i, float* out,
                      float alpha, long n) {
  mixed_kernel<<<(unsigned)((n + 255) / 256), 256>>>(h, b, d, i, out, alpha, n);
}
