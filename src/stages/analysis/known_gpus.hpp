// Ceilings known for a GPU before any measurement on this machine: the achievable DRAM bandwidth
// and the launch floor kprof measured on a GPU of that model, committed here so `kprof analyze`
// of a report from that GPU, on any machine, uses them; the flow puts the values of this
// machine's cache (flows/ceiling_cache.hpp) first. Each value says where it was measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/bound.hpp"

namespace kprof {

/// What is known of one GPU model.
struct GpuCeilings {
  std::string gpu;                      ///< device__attribute_display_name, e.g. "NVIDIA H200"
  std::optional<Rate> dram_achievable;  ///< kprof's copy bandwidth (read + write bytes/s), with where measured
  std::optional<LaunchFloor> floor;     ///< the least kernel duration
};

/// The values committed in kprof's source. NVIDIA H200: 4.22 TB/s achievable (kprof's float4
/// copy, 1 GiB buffers, median of 20: docs/gpu-runs.md "Issue 16"); launch floor 1.472 us
/// (kprof_empty_kernel <<<1, 1>>>, gpu__time_duration.sum median of 20 in kprof's GPU-duration pass,
/// tests/gpu/run.sh floor on 2026-12-05: docs/gpu-runs.md). Neither is provisional.
const std::vector<GpuCeilings>& committed_gpu_ceilings();

/// The entry of `known` for `device_name`, the first one wins (exact name); nullopt when none or
/// the name is empty.
std::optional<GpuCeilings> ceilings_for_gpu(const std::vector<GpuCeilings>& known, const std::string& device_name);

}  // namespace kprof
