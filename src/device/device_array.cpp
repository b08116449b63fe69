#include "device/device_array.hpp"

#include <cuda_runtime_api.h>

#include <utility>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {

DeviceArray::DeviceArray(size_t bytes, const std::string& what) : bytes_(bytes) {
  if (bytes == 0) return;
  cudaError_t rc = cudaMalloc(&ptr_, bytes);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    ptr_ = nullptr;
    throw check_failed("cannot allocate " + fmt_bytes(static_cast<double>(bytes)) + " on the GPU for " + what + ": " +
                           cudaGetErrorString(rc),
                       "use smaller dimensions or --ptr-size / --size, or free GPU memory");
  }
}

std::optional<DeviceArray> DeviceArray::try_allocate(size_t bytes, std::string* error) {
  DeviceArray a;
  a.bytes_ = bytes;
  if (bytes == 0) return a;
  cudaError_t rc = cudaMalloc(&a.ptr_, bytes);
  if (rc == cudaSuccess) return a;
  cudaGetLastError();
  a.ptr_ = nullptr;
  if (error) *error = std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
  return std::nullopt;
}

DeviceArray::~DeviceArray() { device_free(ptr_); }

DeviceArray::DeviceArray(DeviceArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}

DeviceArray& DeviceArray::operator=(DeviceArray&& o) noexcept {
  if (this != &o) {
    device_free(ptr_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = o.bytes_;
  }
  return *this;
}

void DeviceArray::upload(const void* src, size_t bytes, const std::string& what) {
  if (bytes > bytes_) throw check_failed("internal: upload of " + std::to_string(bytes) + " bytes into " + what);
  if (bytes) cuda_check(cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice), "copying " + what);
}

DeviceArray DeviceArray::copy_of(const void* src, size_t bytes, const std::string& what) {
  DeviceArray a(bytes, what);
  if (bytes) cuda_check(cudaMemcpy(a.get(), src, bytes, cudaMemcpyDeviceToDevice), "copying " + what);
  return a;
}

}  // namespace kprof
