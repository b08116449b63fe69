// Kernels with one planted defect each, for kprof's hot-line and findings tests.
// Each defect sits on a line marked "PLANTED: <kind>"; tests find that line in the .ncu-rep that
// scripts/capture-test-reports.sh records on the H200 (ncu --set full --import-source yes).
// Build: nvcc -O3 -lineinfo -arch=sm_90 planted.cu -o planted ; run: ./planted <kernel>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

constexpr int N = 1 << 22;  // 4 Mi elements: a few tens of microseconds per kernel

__global__ void uncoalesced_gather(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = (int)(((long long)i * 4099) % n);  // neighbouring threads read 16 KiB apart
  out[i] = in[j] * 2.0f;                     // PLANTED: uncoalesced
}

__global__ void bank_conflict(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];  // no padding: a column walk hits one bank 32 times
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = (threadIdx.x >> 5) & 31;
  tile[warp][lane] = i < n ? in[i] : 0.0f;
  __syncthreads();
  float acc = 0.0f;
  // Lane l reads word l*32 + r: every lane of the warp hits the same bank (32-way conflict).
  for (int r = 0; r < 64; ++r) acc += tile[lane][r & 31] * 0.5f + tile[lane][(r + 7) & 31];  // PLANTED: bank_conflict
  if (i < n) out[i] = acc;
}

__global__ void local_spill(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a[64];  // indexed with run-time values: lives in local memory
  for (int k = 0; k < 64; ++k) a[k] = in[(i + k) % n];
  float acc = 0.0f;
  for (int k = 0; k < 256; ++k) acc += a[(i * 7 + k * 13) & 63];  // PLANTED: local_memory
  out[i] = acc;
}

__global__ void divergent(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  if ((threadIdx.x & 7) == 0) {  // PLANTED: divergence (4 of 32 threads take the long path)
    for (int k = 0; k < 512; ++k) v = v * 1.0001f + 0.5f;
  }
  out[i] = v;
}

// Issue 42's kernels (after the ones above, which must not move): SM SOL from the ADU pipe
// (barriers), LDGSTS loads (cp.async), the launch floor (empty), a one-block kernel and a
// dependent FMA chain (ILP).
#include <cuda_pipeline.h>

__global__ void barrier_exchange(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  for (int r = 0; r < 256; ++r) {
    tile[threadIdx.x] = v;
    __syncthreads();  // PLANTED: barrier (the write is visible)
    v += tile[(threadIdx.x + 1) & 255];
    __syncthreads();  // PLANTED: barrier (the read is done before the next write)
  }
  if (i < n) out[i] = v;
}

__global__ void ldgsts_copy(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[2][256];
  float acc = 0.f;
  int stride = gridDim.x * blockDim.x;
  int buf = 0;
  for (int base = blockIdx.x * blockDim.x; base < n; base += stride, buf ^= 1) {
    int i = base + threadIdx.x;
    if (i < n) __pipeline_memcpy_async(&tile[buf][threadIdx.x], &in[i], sizeof(float));  // PLANTED: ldgsts
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    acc += tile[buf][(threadIdx.x + 7) & 255];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void empty_kernel() {}

__global__ void one_block(const float* __restrict__ in, float* __restrict__ out) {
  out[threadIdx.x] = in[threadIdx.x] * 2.f;  // PLANTED: one block
}

__global__ void fma_chain(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i], a = 1.0001f, b = 0.999f;
  for (int r = 0; r < 4096; ++r) x = fmaf(x, a, b);  // PLANTED: dependent chain (one accumulator)
  out[i] = x;
}

// solve_<kind>.cu include the kernels above without this program (kprof's solve() contract; lines
// above must not move: the committed reports in tests/data/ncurep refer to them).
#ifndef PLANTED_NO_MAIN
int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s uncoalesced|bank|local|divergent|barrier|ldgsts|empty|one_block|fma_chain|all\n",
                 argv[0]);
    return 2;
  }
  float *in, *out;
  cudaMalloc(&in, N * sizeof(float));
  cudaMalloc(&out, N * sizeof(float));
  cudaMemset(in, 0, N * sizeof(float));
  const char* k = argv[1];
  bool all = std::strcmp(k, "all") == 0;
  dim3 block(256), grid((N + 255) / 256);
  if (all || !std::strcmp(k, "uncoalesced")) uncoalesced_gather<<<grid, block>>>(in, out, N);
  if (all || !std::strcmp(k, "bank")) bank_conflict<<<dim3(N / 1024), dim3(1024)>>>(in, out, N);
  if (all || !std::strcmp(k, "local")) local_spill<<<grid, block>>>(in, out, N);
  if (all || !std::strcmp(k, "divergent")) divergent<<<grid, block>>>(in, out, N);
  if (all || !std::strcmp(k, "barrier")) barrier_exchange<<<grid, block>>>(in, out, N);
  if (all || !std::strcmp(k, "ldgsts")) ldgsts_copy<<<dim3(132 * 8), block>>>(in, out, N);
  if (all || !std::strcmp(k, "empty")) empty_kernel<<<1, 1>>>();
  if (all || !std::strcmp(k, "one_block")) one_block<<<1, 128>>>(in, out);
  if (all || !std::strcmp(k, "fma_chain")) fma_chain<<<dim3(132), dim3(32)>>>(in, out, N);  // a warp per SM
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
#endif  // PLANTED_NO_MAIN
