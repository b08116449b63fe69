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
    f.seconds = 1.6e-6;
    f.how = std::string("provisional: kprof's probe kernel <<<1, 32>>> (64 integer multiply-adds), ") +
            metric::kDuration +
            " 1600 ns in src/stages/ncu/warmup.ncu-rep (ncu 2025.3.1 on an NVIDIA H200), an upper bound of an "
            "empty kernel's";
    f.measured_at = "committed";
    f.provisional = true;
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
