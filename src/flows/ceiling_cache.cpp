#include "flows/ceiling_cache.hpp"

#include <map>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {

std::string ceiling_cache_path() {
  const std::string base = kprof_cache_dir();
  return base.empty() ? "" : join_path(base, "ceilings.json");
}

namespace {

/// The entry under `key` in `doc` when it is an object whose `field` is a positive number, else nullptr.
const nlohmann::json* positive_entry(const nlohmann::json& doc, const std::string& key, const char* field) {
  if (!doc.is_object() || !doc.contains(key)) return nullptr;
  const auto& e = doc[key];
  if (!e.is_object() || !e.contains(field) || !e[field].is_number() || !(e[field].get<double>() > 0)) return nullptr;
  return &e;
}

/// The cache document at `path`; an empty object when there is none or it cannot be parsed.
nlohmann::json read_cache(const std::string& path) {
  if (path.empty() || !path_exists(path)) return nlohmann::json::object();
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const std::exception&) {
    return nlohmann::json::object();
  }
}

/// One kind of cache entry: its value's field in the file and in T (AchievableBandwidth::bytes_per_s,
/// LaunchFloor::seconds); T also has how, measured_at and cached.
template <typename T>
struct EntryKind {
  const char* field;
  double T::*value;
};

const EntryKind<AchievableBandwidth> kBandwidthEntry{"bytes_per_s", &AchievableBandwidth::bytes_per_s};
const EntryKind<LaunchFloor> kFloorEntry{"floor_s", &LaunchFloor::seconds};

template <typename T>
std::optional<T> lookup(const nlohmann::json& doc, const std::string& key, const EntryKind<T>& kind) {
  const nlohmann::json* e = positive_entry(doc, key, kind.field);
  if (!e) return std::nullopt;
  T t;
  t.*kind.value = (*e)[kind.field].template get<double>();
  t.how = e->value("how", "");
  t.measured_at = e->value("measured_at", "");
  t.cached = true;
  return t;
}

template <typename T>
nlohmann::json store(nlohmann::json doc, const std::string& key, const T& t, const EntryKind<T>& kind) {
  if (!doc.is_object()) doc = nlohmann::json::object();
  doc[key] = {{kind.field, t.*kind.value}, {"how", t.how}, {"measured_at", t.measured_at}};
  return doc;
}

/// The entry of `key` in the cache file `path`, else `measure(why)` stored there (see cached_or_measured).
template <typename T>
std::optional<T> cached_or_measured_as(const std::string& path, const std::string& key, const EntryKind<T>& kind,
                                       const std::function<std::optional<T>(std::string*)>& measure, std::string* why) {
  nlohmann::json doc = read_cache(path);  // a damaged cache is measured again and rewritten
  if (auto hit = lookup(doc, key, kind)) return hit;
  auto t = measure(why);
  if (!t) return std::nullopt;
  if (path.empty()) {
    if (why) *why = "no cache folder (set KPROF_CACHE_DIR or HOME): measured, not cached";
    return t;
  }
  try {
    write_file_atomic(path, store(doc, key, *t, kind).dump(1) + "\n");
  } catch (const Error& e) {
    if (why) *why = std::string("measured, not cached: ") + e.what();
  }
  return t;
}

}  // namespace

std::optional<AchievableBandwidth> cache_lookup(const nlohmann::json& doc, const std::string& key) {
  return lookup(doc, key, kBandwidthEntry);
}

nlohmann::json cache_store(nlohmann::json doc, const std::string& key, const AchievableBandwidth& bw) {
  return store(std::move(doc), key, bw, kBandwidthEntry);
}

std::optional<AchievableBandwidth> cached_or_measured(
    const std::string& path, const std::string& key,
    const std::function<std::optional<AchievableBandwidth>(std::string*)>& measure, std::string* why) {
  return cached_or_measured_as(path, key, kBandwidthEntry, measure, why);
}

std::optional<AchievableBandwidth> achievable_dram_bandwidth(int gpu, std::string* why) {
  std::string key;
  try {
    key = gpu_ceiling_key(gpu);
  } catch (const Error& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  return cached_or_measured(ceiling_cache_path(), key, measure_achievable_dram_bandwidth, why);
}

std::string floor_cache_key(const std::string& copy_key) {
  const std::string suffix = "|copy-v1";
  std::string base = copy_key;
  if (base.size() >= suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0)
    base.resize(base.size() - suffix.size());
  return base + "|floor-v1";
}

std::optional<LaunchFloor> floor_cache_lookup(const nlohmann::json& doc, const std::string& key) {
  return lookup(doc, key, kFloorEntry);
}

nlohmann::json floor_cache_store(nlohmann::json doc, const std::string& key, const LaunchFloor& f) {
  return store(std::move(doc), key, f, kFloorEntry);
}

std::optional<LaunchFloor> launch_floor(int gpu, std::string* why) {
  std::string key;
  try {
    key = floor_cache_key(gpu_ceiling_key(gpu));
  } catch (const Error& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  auto measure = [gpu](std::string* w) { return measure_launch_floor(gpu, w); };
  return cached_or_measured_as<LaunchFloor>(ceiling_cache_path(), key, kFloorEntry, measure, why);
}

std::vector<GpuCeilings> known_gpu_ceilings(const nlohmann::json& doc) {
  std::vector<GpuCeilings> out;
  auto entry_for = [&](const std::string& gpu) -> GpuCeilings& {
    for (auto& g : out)
      if (g.gpu == gpu) return g;
    out.push_back(GpuCeilings{gpu, std::nullopt, std::nullopt});
    return out.back();
  };
  std::map<std::string, std::string> bw_at, floor_at;  // the latest measured_at per GPU wins
  if (doc.is_object())
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      const std::string& key = it.key();
      std::string gpu = key.substr(0, key.find('|'));
      if (auto bw = cache_lookup(doc, key); bw && bw->measured_at >= bw_at[gpu]) {
        bw_at[gpu] = bw->measured_at;
        entry_for(gpu).dram_achievable = Rate{bw->bytes_per_s, bw->how + ", cached from " + bw->measured_at};
      } else if (auto f = floor_cache_lookup(doc, key); f && f->measured_at >= floor_at[gpu]) {
        floor_at[gpu] = f->measured_at;
        entry_for(gpu).floor = *f;
      }
    }
  for (const auto& c : committed_gpu_ceilings()) {
    GpuCeilings& g = entry_for(c.gpu);
    if (!g.dram_achievable) g.dram_achievable = c.dram_achievable;
    if (!g.floor) g.floor = c.floor;
  }
  return out;
}

std::vector<GpuCeilings> known_gpu_ceilings() { return known_gpu_ceilings(read_cache(ceiling_cache_path())); }

}  // namespace kprof
