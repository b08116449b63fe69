#include "device/host_array.hpp"

#include "device/cuda.hpp"

namespace kprof {

HostArray copy_to_host(const std::string& name, DType dtype, size_t count, const void* device_ptr) {
  HostArray a;
  a.name = name;
  a.dtype = dtype;
  a.count = count;
  a.bytes.resize(count * dtype_size(dtype));
  if (!a.bytes.empty())
    cuda_check(cudaMemcpy(a.bytes.data(), device_ptr, a.bytes.size(), cudaMemcpyDeviceToHost),
               "copying '" + name + "' to the host");
  return a;
}

}  // namespace kprof
