// Row softmax, version 2: one warp per row, warp-shuffle reductions, online max/sum, float4 loads.
//
// Launch: 4 warps (128 threads) per block, one warp per row, grid = ceil(N / 4). No shared
// memory and no __syncthreads: the 32 lanes combine their partials with __shfl_xor_sync.
// Two passes over the row instead of three: pass 1 keeps a running (max, sum) per lane
// ("online softmax": when the max grows, the sum is rescaled by exp(old_max - new_max)); pass 2
// writes exp(x - max) / sum. When D % 4 == 0 and both pointers are 16-byte aligned every row
// starts 16-byte aligned and the lanes use float4 loads and stores; otherwise scalar ones.
// Correct for any N and D.
//
// Build: nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -o v2.so v2.cu
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

constexpr int kWarpsPerBlock = 4;

// Folds value x into the running (m, s): m = max so far, s = sum of exp(x_i - m).
__device__ __forceinline__ void online_add(float& m, float& s, float x) {
  if (x > m) {
    s = s * expf(m - x) + 1.f;  // m = -inf on the first element: s = 0 * 0 + 1
    m = x;
  } else {
    s += expf(x - m);
  }
}

// Merges another lane's (mo, so) into (m, s). A lane that saw no element has (-inf, 0).
__device__ __forceinline__ void online_merge(float& m, float& s, float mo, float so) {
  const float mn = fmaxf(m, mo);
  if (mn == -INFINITY) return;  // both empty (or all -inf): avoid exp(-inf - -inf) = NaN
  s = s * expf(m - mn) + so * expf(mo - mn);
  m = mn;
}

template <bool kVec4>
__global__ void softmax_v2(const float* __restrict__ input, float* __restrict__ output, int N, int D) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= N) return;  // whole warp leaves together: the shuffles below stay full-warp
  const float* in = input + static_cast<size_t>(row) * D;
  float* out = output + static_cast<size_t>(row) * D;

  float m = -INFINITY, s = 0.f;
  if (kVec4) {
    const float4* in4 = reinterpret_cast<const float4*>(in);
    for (int c = lane; c < D / 4; c += 32) {
      const float4 v = in4[c];
      online_add(m, s, v.x); online_add(m, s, v.y); online_add(m, s, v.z); online_add(m, s, v.w);
    }
  } else {
    for (int c = lane; c < D; c += 32) online_add(m, s, in[c]);
  }
  for (int off = 16; off > 0; off >>= 1) {
    const float mo = __shfl_xor_sync(0xffffffffu, m, off);
    const float so = __shfl_xor_sync(0xffffffffu, s, off);
    online_merge(m, s, mo, so);
  }

  const float inv = 1.f / s;
  if (kVec4) {
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (int c = lane; c < D / 4; c += 32) {
      const float4 v = in4[c];
      out4[c] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv,
                            expf(v.w - m) * inv);
    }
  } else {
    for (int c = lane; c < D; c += 32) out[c] = expf(in[c] - m) * inv;
  }
}

// input, output: N*D floats (device, row-major). Default stream, no synchronization.
extern "C" void solve(const float* input, float* output, int N, int D) {
  if (N <= 0 || D <= 0) return;
  const dim3 grid((N + kWarpsPerBlock - 1) / kWarpsPerBlock), block(32 * kWarpsPerBlock);
  const bool aligned = (reinterpret_cast<uintptr_t>(input) % 16 == 0) &&
                       (reinterpret_cast<uintptr_t>(output) % 16 == 0);
  if (D % 4 == 0 && aligned)
    softmax_v2<true><<<grid, block>>>(input, output, N, D);
  else
    softmax_v2<false><<<grid, block>>>(input, output, N, D);
}
