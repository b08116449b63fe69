// The achievable DRAM bandwidth of a GPU: what a device-to-device copy of kprof's own reaches,
// measured once per GPU and cached, so "at most Y x faster" is judged against a bandwidth a real
// kernel can reach (about 4.3 TB/s on the H200) rather than ncu's theoretical peak (4.8 TB/s).
#pragma once

#include <nlohmann/json.hpp>

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

/// The cache file: $KPROF_CACHE_DIR/ceilings.json, else $XDG_CACHE_HOME/kprof/ceilings.json,
/// else $HOME/.cache/kprof/ceilings.json ("" when none of them is set).
std::string ceiling_cache_path();

/// The cache key of a GPU: "<name>|<PCI bus id>|driver <version>|copy-v1" (a new driver or
/// another GPU in the slot measures again).
std::string ceiling_cache_key(const std::string& gpu_name, const std::string& pci_bus_id, int driver_version);

/// The entry of `key` in the cache document `doc` ({"<key>": {bytes_per_s, how, measured_at}}),
/// or nullopt when absent or malformed. Pure.
std::optional<AchievableBandwidth> cache_lookup(const nlohmann::json& doc, const std::string& key);

/// `doc` with `key` set to `bw`. Pure.
nlohmann::json cache_store(nlohmann::json doc, const std::string& key, const AchievableBandwidth& bw);

/// The achievable bandwidth of CUDA device `gpu` (already selected): the cached value when
/// present, else measured now (two buffers of min(1 GiB, free memory / 4); a float4 copy kernel
/// and cudaMemcpy device-to-device, 3 warm-up and 20 timed repetitions each, CUDA events; the
/// higher median wins) and stored. nullopt with `why` when it cannot be measured (no memory, a
/// CUDA error); never throws. A cache that cannot be written only adds a note to `why`.
std::optional<AchievableBandwidth> achievable_dram_bandwidth(int gpu, std::string* why = nullptr);

}  // namespace kprof
