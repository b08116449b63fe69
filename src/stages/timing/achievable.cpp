#include "stages/timing/achievable.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "stages/timing/bandwidth_kernel.hpp"
#include "stages/timing/device_ops.hpp"

namespace kprof {

namespace {

constexpr int kWarmupReps = 3;
constexpr int kTimedReps = 20;
constexpr size_t kMaxBufferBytes = size_t{1} << 30;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32] = {};
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Median of kTimedReps timed runs of `op` (after kWarmupReps), in seconds; throws Error on CUDA errors.
template <typename Op>
double median_seconds(Op op) {
  EventPair ev;
  std::vector<double> s;
  for (int i = 0; i < kWarmupReps; ++i) cuda_check(op(), "bandwidth warm-up copy");
  for (int i = 0; i < kTimedReps; ++i) {
    cuda_check(cudaEventRecord(ev.start, cudaStreamLegacy), "cudaEventRecord");
    cuda_check(op(), "bandwidth copy");
    cuda_check(cudaEventRecord(ev.stop, cudaStreamLegacy), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(ev.stop), "bandwidth copy");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime");
    s.push_back(ms * 1e-3);
  }
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

AchievableBandwidth measure() {
  size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  size_t bytes = std::min(kMaxBufferBytes, free_b / 4) / 16 * 16;
  if (bytes < (size_t{64} << 20))
    throw check_failed(fmt::format("only {} of GPU memory free: too little to measure the copy bandwidth",
                                   fmt_bytes(static_cast<double>(free_b))));
  DeviceArray src_mem(bytes, "the bandwidth source buffer");
  DeviceArray dst_mem(bytes, "the bandwidth destination buffer");
  void* src = src_mem.get();
  void* dst = dst_mem.get();
  cuda_check(cudaMemset(src, 1, bytes), "filling the bandwidth source buffer");
  double t_kernel = median_seconds([&] { return launch_bandwidth_copy(src, dst, bytes); });
  double t_memcpy =
      median_seconds([&] { return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStreamLegacy); });
  double moved = 2.0 * static_cast<double>(bytes);  // each byte read once and written once
  AchievableBandwidth bw;
  bw.bytes_per_s = std::max(moved / t_kernel, moved / t_memcpy);
  bw.how = fmt::format(
      "device-to-device copy of {} (read + write {}), median of {} after {} warm-up: kprof's "
      "float4 copy kernel {}/s, cudaMemcpy {}/s; the higher is the ceiling",
      fmt_bytes(static_cast<double>(bytes)), fmt_bytes(moved), kTimedReps, kWarmupReps, fmt_bytes(moved / t_kernel),
      fmt_bytes(moved / t_memcpy));
  bw.measured_at = utc_now();
  return bw;
}

}  // namespace

std::string ceiling_cache_path() {
  if (auto d = env_or_empty("KPROF_CACHE_DIR"); !d.empty()) return join_path(d, "ceilings.json");
  if (auto d = env_or_empty("XDG_CACHE_HOME"); !d.empty()) return join_path(join_path(d, "kprof"), "ceilings.json");
  if (auto d = env_or_empty("HOME"); !d.empty()) return join_path(join_path(d, ".cache/kprof"), "ceilings.json");
  return "";
}

std::string ceiling_cache_key(const std::string& gpu_name, const std::string& pci_bus_id, int driver_version) {
  return fmt::format("{}|{}|driver {}|copy-v1", gpu_name, pci_bus_id, driver_version);
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

std::optional<AchievableBandwidth> achievable_dram_bandwidth(int gpu, std::string* why) {
  std::string key;
  try {
    cudaDeviceProp p{};
    cuda_check(cudaGetDeviceProperties(&p, gpu), "cudaGetDeviceProperties");
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, gpu);
    int driver = 0;
    cudaDriverGetVersion(&driver);
    key = ceiling_cache_key(p.name, bus, driver);
  } catch (const Error& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  std::string path = ceiling_cache_path();
  nlohmann::json doc = nlohmann::json::object();
  if (!path.empty() && path_exists(path)) {
    try {
      doc = nlohmann::json::parse(read_file(path));
    } catch (const std::exception&) {
      doc = nlohmann::json::object();  // a damaged cache is measured again and rewritten
    }
    if (auto hit = cache_lookup(doc, key)) return hit;
  }
  AchievableBandwidth bw;
  try {
    bw = measure();
  } catch (const Error& e) {
    if (why) *why = std::string("achievable bandwidth not measured: ") + e.what();
    return std::nullopt;
  }
  if (path.empty()) {
    if (why) *why = "no cache folder (set KPROF_CACHE_DIR or HOME): measured, not cached";
    return bw;
  }
  try {
    write_file_atomic(path, cache_store(doc, key, bw).dump(1) + "\n");
  } catch (const Error& e) {
    if (why) *why = std::string("measured, not cached: ") + e.what();
  }
  return bw;
}

}  // namespace kprof
