#include "stages/timing/launch_floor.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "core/error.hpp"
#include "device/cuda.hpp"
#include "stages/timing/bandwidth_kernel.hpp"
#include "stages/timing/gpu_duration.hpp"

namespace kprof {

namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32] = {};
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

LaunchFloor measure(int gpu) {
  cuda_check(cudaFree(nullptr), "creating the CUDA context");  // the range profiler needs one
  GpuDurationTimer timer(gpu, false);
  for (int i = 0; i < kLaunchFloorWarmups; ++i) cuda_check(launch_empty_kernel(), "launch-floor warm-up kernel");
  cuda_check(cudaDeviceSynchronize(), "launch-floor warm-up kernel");
  std::vector<double> ns;
  for (int i = 0; i < kLaunchFloorReps; ++i) {
    timer.begin();
    cuda_check(launch_empty_kernel(), "launch-floor kernel");
    cuda_check(cudaDeviceSynchronize(), "launch-floor kernel");
    auto d = timer.end();
    if (d.size() != 1) throw check_failed(fmt::format("the launch floor's range held {} kernels, not 1", d.size()));
    ns.push_back(d.front().ns);
  }
  std::sort(ns.begin(), ns.end());
  LaunchFloor f;
  f.seconds = ns[ns.size() / 2] * 1e-9;
  f.how = fmt::format("{} <<<1, 1>>>: {} median of {} (min {} ns, max {} ns; kprof's GPU-duration pass)",
                      kEmptyKernelName, kGpuDurationMetric, ns.size(), ns.front(), ns.back());
  f.measured_at = utc_now();
  return f;
}

}  // namespace

std::optional<LaunchFloor> measure_launch_floor(int gpu, std::string* why) {
  try {
    return measure(gpu);
  } catch (const Error& e) {
    if (why) *why = std::string("launch floor not measured: ") + e.what();
  } catch (const std::exception& e) {
    if (why) *why = std::string("launch floor not measured: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace kprof
