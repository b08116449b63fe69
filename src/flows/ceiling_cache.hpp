// The cache of the achievable DRAM bandwidth (stages/timing/achievable.hpp measures it): one JSON
// file per user, {"<GPU key>": {bytes_per_s, how, measured_at}}, read and written here in the flow
// layer (stages write no file).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "stages/timing/achievable.hpp"

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

}  // namespace kprof
