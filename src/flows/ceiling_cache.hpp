// The cache of the achievable DRAM bandwidth (stages/timing/achievable.hpp measures it) and of the
// launch floor (stages/timing/launch_floor.hpp): one JSON file per user, {"<GPU key>":
// {bytes_per_s, how, measured_at}, "<GPU floor key>": {floor_s, how, measured_at}}, read and
// written here in the flow layer (stages write no file).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "stages/analysis/known_gpus.hpp"
#include "stages/timing/achievable.hpp"
#include "stages/timing/launch_floor.hpp"

namespace kprof {

/// The cache file: $KPROF_CACHE_DIR/ceilings.json, else $XDG_CACHE_HOME/kprof/ceilings.json,
/// else $HOME/.cache/kprof/ceilings.json ("" when none of them is set).
std::string ceiling_cache_path();

/// The entry of `key` in the cache document `doc` ({"<key>": {bytes_per_s, how, measured_at}}),
/// or nullopt when absent or malformed. Pure.
std::optional<AchievableBandwidth> cache_lookup(const nlohmann::json& doc, const std::string& key);

/// `doc` with `key` set to `bw`. Pure.
nlohmann::json cache_store(nlohmann::json doc, const std::string& key, const AchievableBandwidth& bw);

/// The entry of `key` in the cache file `path` when present (cached = true); else `measure(why)`
/// and, when it gives a value, that value stored in `path` (write_file_atomic; a damaged file is
/// measured again and rewritten). `path` "" measures without caching. Never throws: a cache that
/// cannot be written only adds a note to `why`.
std::optional<AchievableBandwidth> cached_or_measured(
    const std::string& path, const std::string& key,
    const std::function<std::optional<AchievableBandwidth>(std::string*)>& measure, std::string* why);

/// The achievable bandwidth of CUDA device `gpu` (already selected): the cached value of
/// ceiling_cache_path() when present, else measured now (measure_achievable_dram_bandwidth) and
/// stored. nullopt with `why` when it cannot be measured; never throws.
std::optional<AchievableBandwidth> achievable_dram_bandwidth(int gpu, std::string* why = nullptr);

/// The cache key of the launch floor of the GPU whose bandwidth key is `copy_key`
/// ("<name>|<PCI bus id>|driver <version>|floor-v1"). Pure.
std::string floor_cache_key(const std::string& copy_key);

/// The launch floor under `key` in `doc` ({"floor_s", "how", "measured_at"}), or nullopt. Pure.
std::optional<LaunchFloor> floor_cache_lookup(const nlohmann::json& doc, const std::string& key);

/// `doc` with `key` set to `f`. Pure.
nlohmann::json floor_cache_store(nlohmann::json doc, const std::string& key, const LaunchFloor& f);

/// The launch floor of CUDA device `gpu` (already selected): cached in ceiling_cache_path() when
/// present, else measured now (measure_launch_floor) and stored. nullopt with `why` when it cannot
/// be measured; never throws.
std::optional<LaunchFloor> launch_floor(int gpu, std::string* why = nullptr);

/// The ceilings known per GPU model for `kprof analyze`: the entries of the cache document `doc`
/// (their GPU name is the key's first field; the latest measured_at wins), then
/// committed_gpu_ceilings() for what the cache lacks. Pure.
std::vector<GpuCeilings> known_gpu_ceilings(const nlohmann::json& doc);

/// known_gpu_ceilings of the cache file (an unreadable or absent file: the committed values).
std::vector<GpuCeilings> known_gpu_ceilings();

}  // namespace kprof
