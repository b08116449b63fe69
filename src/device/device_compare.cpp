// device_bytes_equal (device_compare.hpp) over the launch in device_compare.cu (device/launch.hpp).
#include "device/device_compare.hpp"

#include <string>

#include "device/cuda.hpp"
#include "device/device_array.hpp"
#include "device/launch.hpp"

namespace kprof {

bool device_bytes_equal(const void* a, const void* b, size_t bytes, const char* what) {
  if (bytes == 0 || a == b) return true;
  DeviceArray flag(sizeof(unsigned), std::string("the comparison flag of ") + what);
  cuda_check(cudaMemset(flag.get(), 0, sizeof(unsigned)), std::string("comparing ") + what);
  cuda_check(launch_bytes_differ(a, b, bytes, static_cast<unsigned*>(flag.get())), std::string("comparing ") + what);
  unsigned differs = 0;
  cuda_check(cudaMemcpy(&differs, flag.get(), sizeof differs, cudaMemcpyDeviceToHost),
             std::string("comparing ") + what);
  return differs == 0;
}

}  // namespace kprof
