#include "verify/device_ops.hpp"

#include <cuda_runtime.h>

#include <utility>

#include "core/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

template <typename T>
__global__ void fill_kernel(T* p, size_t n, T v) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

template <typename T>
void launch_fill(void* ptr, size_t count, uint64_t bits) {
  size_t blocks = (count + 255) / 256;
  if (blocks > 65535) blocks = 65535;
  if (blocks == 0) return;
  fill_kernel<T><<<static_cast<unsigned>(blocks), 256>>>(static_cast<T*>(ptr), count, static_cast<T>(bits));
}

}  // namespace

DeviceArray::DeviceArray(size_t bytes, const std::string& what) : bytes_(bytes) {
  if (bytes == 0) return;
  cudaError_t rc = cudaMalloc(&ptr_, bytes);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    ptr_ = nullptr;
    throw check_failed("cannot allocate " + fmt_bytes(static_cast<double>(bytes)) + " on the GPU for " + what +
                           ": " + cudaGetErrorString(rc),
                       "use smaller dimensions or --ptr-size / --size, or free GPU memory");
  }
}

DeviceArray::~DeviceArray() {
  if (ptr_) cudaFree(ptr_);
}

DeviceArray::DeviceArray(DeviceArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}

DeviceArray& DeviceArray::operator=(DeviceArray&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = o.bytes_;
  }
  return *this;
}

DeviceArray DeviceArray::copy_of(const void* src, size_t bytes, const std::string& what) {
  DeviceArray a(bytes, what);
  if (bytes) cuda_check(cudaMemcpy(a.get(), src, bytes, cudaMemcpyDeviceToDevice), "copying " + what);
  return a;
}

void fill_bits(void* ptr, size_t count, size_t elem_size, uint64_t bits) {
  switch (elem_size) {
    case 1: launch_fill<uint8_t>(ptr, count, bits); break;
    case 2: launch_fill<uint16_t>(ptr, count, bits); break;
    case 4: launch_fill<uint32_t>(ptr, count, bits); break;
    case 8: launch_fill<unsigned long long>(ptr, count, bits); break;
    default: throw usage_error("fill_bits: unsupported element size " + std::to_string(elem_size));
  }
  cuda_check(cudaGetLastError(), "launching kprof's fill kernel");
  cuda_check(cudaDeviceSynchronize(), "kprof's fill kernel");
}

}  // namespace kprof
