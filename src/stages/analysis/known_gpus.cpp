#include "stages/analysis/known_gpus.hpp"

#include "stages/ncu/metrics.hpp"

namespace kprof {

const std::vector<GpuCeilings>& committed_gpu_ceilings() {
  static const std::vector<GpuCeilings> known = [] {
    GpuCeilings h200;
    h200.gpu = "NVIDIA H200";
    h200.dram_achievable =
        Rate{4.22e12,
             "kprof's float4 copy measured on an NVIDIA H200, 1 GiB buffers, median of 20 (committed: "
             "docs/gpu-runs.md, issue 16)"};
    LaunchFloor f;
    f.seconds = 1.472e-6;
    f.how = std::string("kprof_empty_kernel <<<1, 1>>>, ") + metric::kDuration +
            " median of 20 in kprof's GPU-duration pass (min 1.248 us, max 1.824 us), measured on an NVIDIA H200 "
            "(driver 580.159.04) on 2026-12-05 by tests/gpu/run.sh floor (docs/gpu-runs.md); ncu's one profiled "
            "launch of the same kernel read 1.600 us";
    f.measured_at = "committed";
    h200.floor = f;
    return std::vector<GpuCeilings>{h200};
  }();
  return known;
}

std::optional<GpuCeilings> ceilings_for_gpu(const std::vector<GpuCeilings>& known, const std::string& device_name) {
  if (device_name.empty()) return std::nullopt;
  for (const auto& g : known)
    if (g.gpu == device_name) return g;
  return std::nullopt;
}

}  // namespace kprof
