// run_probe_kernel (probe_kernel.hpp) over the launch in probe_kernel.cu (device/launch.hpp says
// why the checks are apart from nvcc's code).
#include "stages/env/probe_kernel.hpp"

#include <string>

#include "core/error.hpp"
#include "device/cuda.hpp"
#include "device/device_array.hpp"

namespace kprof {

void run_probe_kernel(int gpu) {
  select_gpu(gpu);
  DeviceArray mem(33 * sizeof(unsigned), "the probe kernel's output");
  unsigned* d = static_cast<unsigned*>(mem.get());
  cuda_check(launch_probe_kernel(d), "launching kprof's probe kernel");
  unsigned first = 0;
  cuda_check(cudaMemcpy(&first, d, sizeof first, cudaMemcpyDeviceToHost), "running kprof's probe kernel");
  if (first != 42u)
    throw check_failed("kprof's probe kernel ran but wrote " + std::to_string(first) + " instead of 42");
}

}  // namespace kprof
