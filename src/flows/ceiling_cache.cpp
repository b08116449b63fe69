#include "flows/ceiling_cache.hpp"

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {

std::string ceiling_cache_path() {
  const std::string base = kprof_cache_dir();
  return base.empty() ? "" : join_path(base, "ceilings.json");
}

std::optional<AchievableBandwidth> cache_lookup(const nlohmann::json& doc, const std::string& key) {
  if (!doc.is_object() || !doc.contains(key)) return std::nullopt;
  const auto& e = doc[key];
  if (!e.is_object() || !e.contains("bytes_per_s") || !e["bytes_per_s"].is_number()) return std::nullopt;
  AchievableBandwidth bw;
  bw.bytes_per_s = e["bytes_per_s"].get<double>();
  if (!(bw.bytes_per_s > 0)) return std::nullopt;
  bw.how = e.value("how", "");
  bw.measured_at = e.value("measured_at", "");
  bw.cached = true;
  return bw;
}

nlohmann::json cache_store(nlohmann::json doc, const std::string& key, const AchievableBandwidth& bw) {
  if (!doc.is_object()) doc = nlohmann::json::object();
  doc[key] = {{"bytes_per_s", bw.bytes_per_s}, {"how", bw.how}, {"measured_at", bw.measured_at}};
  return doc;
}

std::optional<AchievableBandwidth> cached_or_measured(
    const std::string& path, const std::string& key,
    const std::function<std::optional<AchievableBandwidth>(std::string*)>& measure, std::string* why) {
  nlohmann::json doc = nlohmann::json::object();
  if (!path.empty() && path_exists(path)) {
    try {
      doc = nlohmann::json::parse(read_file(path));
    } catch (const std::exception&) {
      doc = nlohmann::json::object();  // a damaged cache is measured again and rewritten
    }
    if (auto hit = cache_lookup(doc, key)) return hit;
  }
  auto bw = measure(why);
  if (!bw) return std::nullopt;
  if (path.empty()) {
    if (why) *why = "no cache folder (set KPROF_CACHE_DIR or HOME): measured, not cached";
    return bw;
  }
  try {
    write_file_atomic(path, cache_store(doc, key, *bw).dump(1) + "\n");
  } catch (const Error& e) {
    if (why) *why = std::string("measured, not cached: ") + e.what();
  }
  return bw;
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

}  // namespace kprof
