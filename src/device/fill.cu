// kprof's fill kernels and their launches (fill.hpp and fill_hash.hpp; the checks are in fill.cpp).
#include "device/launch.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

#include "device/fill_hash.hpp"

namespace kprof {
namespace {

constexpr int kThreads = 256;

/// Grid for a grid-stride loop over `n` items: enough blocks to fill the GPU, at most 65535*8.
unsigned grid_for(size_t n) {
  size_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(blocks, 65535 * 8)));
}

template <typename T>
__device__ T seeded_value(uint64_t seed, uint32_t buffer, uint64_t i);

template <>
__device__ float seeded_value<float>(uint64_t s, uint32_t b, uint64_t i) {
  return fill_normal_f32(s, b, i);
}
template <>
__device__ double seeded_value<double>(uint64_t s, uint32_t b, uint64_t i) {
  return fill_normal_f64(s, b, i);
}
template <>
__device__ __half seeded_value<__half>(uint64_t s, uint32_t b, uint64_t i) {
  return __float2half_rn(fill_normal_f32(s, b, i));
}
template <>
__device__ __nv_bfloat16 seeded_value<__nv_bfloat16>(uint64_t s, uint32_t b, uint64_t i) {
  return __float2bfloat16_rn(fill_normal_f32(s, b, i));
}

template <typename T>
__global__ void seeded_kernel(T* out, size_t n, uint64_t seed, uint32_t buffer) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    if constexpr (std::is_integral<T>::value)
      out[i] = static_cast<T>(fill_int(seed, buffer, i));
    else
      out[i] = seeded_value<T>(seed, buffer, i);
  }
}

template <typename T>
__global__ void pattern_kernel(T* out, size_t n, T value) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = value;
}

template <typename T>
void launch_seeded(void* p, size_t n, uint64_t seed, uint32_t buffer, cudaStream_t st) {
  seeded_kernel<T><<<grid_for(n), kThreads, 0, st>>>(static_cast<T*>(p), n, seed, buffer);
}

template <typename T>
void launch_pattern(void* p, size_t n, uint64_t bits, cudaStream_t st) {
  pattern_kernel<T><<<grid_for(n), kThreads, 0, st>>>(static_cast<T*>(p), n, static_cast<T>(bits));
}

}  // namespace

cudaError_t launch_fill_seeded(void* ptr, DType dtype, size_t count, uint64_t seed, uint32_t buffer,
                               cudaStream_t stream) {
  switch (dtype) {
    case DType::F32:
      launch_seeded<float>(ptr, count, seed, buffer, stream);
      break;
    case DType::F64:
      launch_seeded<double>(ptr, count, seed, buffer, stream);
      break;
    case DType::F16:
      launch_seeded<__half>(ptr, count, seed, buffer, stream);
      break;
    case DType::BF16:
      launch_seeded<__nv_bfloat16>(ptr, count, seed, buffer, stream);
      break;
    case DType::I8:
      launch_seeded<int8_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::I16:
      launch_seeded<int16_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::I32:
      launch_seeded<int32_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::I64:
      launch_seeded<int64_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::U8:
      launch_seeded<uint8_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::U16:
      launch_seeded<uint16_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::U32:
      launch_seeded<uint32_t>(ptr, count, seed, buffer, stream);
      break;
    case DType::U64:
      launch_seeded<uint64_t>(ptr, count, seed, buffer, stream);
      break;
  }
  return cudaGetLastError();
}

cudaError_t launch_fill_pattern(void* ptr, size_t element_bytes, size_t count, uint64_t bits, cudaStream_t stream) {
  // Bit patterns are element-size integers: the same bytes whatever the element type.
  switch (element_bytes) {
    case 1:
      launch_pattern<uint8_t>(ptr, count, bits, stream);
      break;
    case 2:
      launch_pattern<uint16_t>(ptr, count, bits, stream);
      break;
    case 4:
      launch_pattern<uint32_t>(ptr, count, bits, stream);
      break;
    default:
      launch_pattern<uint64_t>(ptr, count, bits, stream);
      break;
  }
  return cudaGetLastError();
}

}  // namespace kprof
