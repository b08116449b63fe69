// The achievable DRAM bandwidth of a GPU: what a device-to-device copy of kprof's own reaches,
// measured once per GPU (the flow keeps the cache: flows/ceiling_cache.hpp), so "at most Y x
// faster" is judged against a bandwidth a real kernel can reach (about 4.3 TB/s on the H200)
// rather than ncu's theoretical peak (4.8 TB/s).
#pragma once

#include <optional>
#include <string>

namespace kprof {

/// One measured ceiling.
struct AchievableBandwidth {
  double bytes_per_s = 0;   ///< read + write bytes per second of the best copy (median over its repetitions)
  std::string how;          ///< "copy kernel 2 x 1.07 GB, median of 20 (kernel 4.31 TB/s, cudaMemcpy 4.25 TB/s)"
  std::string measured_at;  ///< UTC date-time of the measurement
  bool cached = false;      ///< read from the cache rather than measured now
};

/// The cache key of a GPU: "<name>|<PCI bus id>|driver <version>|copy-v1" (a new driver or
/// another GPU in the slot measures again). Pure.
std::string ceiling_cache_key(const std::string& gpu_name, const std::string& pci_bus_id, int driver_version);

/// ceiling_cache_key of CUDA device `gpu` (its name and PCI bus id from cudaGetDeviceProperties,
/// the driver from cudaDriverGetVersion). Throws Error when the device cannot be queried.
std::string gpu_ceiling_key(int gpu);

/// The achievable bandwidth of the current CUDA device (select_gpu before), measured now: two buffers of
/// min(1 GiB, free memory / 4); a float4 copy kernel and cudaMemcpy device-to-device, 3 warm-up and
/// 20 timed repetitions each, CUDA events; the higher median wins. nullopt with `why` when it
/// cannot be measured (no memory, a CUDA error); never throws. Writes no file: the flow keeps the
/// cache (flows/ceiling_cache.hpp).
std::optional<AchievableBandwidth> measure_achievable_dram_bandwidth(std::string* why = nullptr);

}  // namespace kprof
