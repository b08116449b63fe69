#include "report/roofline_chart.hpp"

#include "core/json_text.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "stages/ncu/metrics.hpp"
#include "python/chart_pool.hpp"

namespace kprof {

namespace {

using nlohmann::json;
namespace m = metric;

std::optional<double> l2_bytes(const KernelMetrics& k) {
  if (auto s = catalog_value(k, m::kL2Sectors)) return *s * threshold::kSectorBytes;
  return std::nullopt;
}

/// L1 traffic of the LSU's global and local loads and stores (sectors x 32 B); shared memory is
/// not in it.
std::optional<double> l1_bytes(const KernelMetrics& k) {
  std::optional<double> sum;
  for (const char* name : {m::kLdSectors, m::kStSectors, m::kLocalLdSectors, m::kLocalStSectors})
    if (auto v = catalog_value(k, name)) sum = sum.value_or(0) + *v * threshold::kSectorBytes;
  return sum;
}

void add_entry(json& spec, const RooflineEntry& e) {
  const KernelMetrics& k = *e.metrics;
  Roofline r = roofline_point(k);
  auto ns = catalog_value(k, m::kDuration);
  if (!ns || *ns <= 0) return;
  double secs = *ns * 1e-9;
  std::vector<std::pair<const char*, std::optional<double>>> levels = {
      {"DRAM", r.dram_bytes}, {"L2", l2_bytes(k)}, {"L1", l1_bytes(k)}};
  if (r.total_flop && *r.total_flop > 0) {
    json p = {{"label", e.label}, {"flop_per_s", *r.total_flop / secs}, {"levels", json::array()}};
    for (const auto& [name, bytes] : levels)
      if (bytes && *bytes > 0) p["levels"].push_back({{"level", name}, {"intensity", *r.total_flop / *bytes}});
    if (e.work && e.work->flops && e.work->min_bytes && e.bound && e.bound->bound_s && *e.bound->bound_s > 0)
      p["bound"] = {{"intensity", *e.work->flops / *e.work->min_bytes},
                    {"flop_per_s", *e.work->flops / *e.bound->bound_s}};
    spec["points"].push_back(p);
    return;
  }
  json b = {{"label", e.label}, {"bytes_per_s", json::object()}};
  for (const auto& [name, bytes] : levels)
    if (bytes && *bytes > 0) b["bytes_per_s"][name] = *bytes / secs;
  if (b["bytes_per_s"].empty()) return;
  if (e.work && e.work->min_bytes && e.bound && e.bound->measured_s > 0)
    b["useful_bytes_per_s"] = *e.work->min_bytes / e.bound->measured_s;
  spec["bandwidth_kernels"].push_back(b);
}

}  // namespace

json roofline_spec(const std::vector<RooflineEntry>& entries, const Ceilings& c, const std::string& title) {
  json spec = {{"title", title},
               {"bandwidth_ceilings", json::array()},
               {"compute_ceilings", json::array()},
               {"points", json::array()},
               {"bandwidth_kernels", json::array()}};
  auto bw = [&](const std::optional<Rate>& r, const char* name, const char* color, const char* ls) {
    if (r && r->per_s > 0)
      spec["bandwidth_ceilings"].push_back({{"name", name}, {"bytes_per_s", r->per_s}, {"color", color}, {"ls", ls}});
  };
  bw(c.dram, "DRAM (theoretical)", "#1f77b4", "-");
  bw(c.dram_achievable, "DRAM (achievable: kprof's copy)", "#1f77b4", "--");
  bw(c.l2, "L2", "#2ca02c", "-");
  bw(c.l1, "L1", "#ff7f0e", "-");
  for (const auto& [name, r] : c.compute)
    if (name == "FP32" || name == "FP64" || name == c.precision)
      spec["compute_ceilings"].push_back({{"name", name}, {"flop_per_s", r.per_s}});
  for (const auto& e : entries)
    if (e.metrics) add_entry(spec, e);
  return spec;
}

bool roofline_has_data(const json& spec) {
  return (spec.contains("points") && !spec["points"].empty()) ||
         (spec.contains("bandwidth_kernels") && !spec["bandwidth_kernels"].empty());
}

std::string RooflineJob::note() const {
  if (!drawing_.valid()) return note_;
  std::string why = drawing_.get();
  return why.empty() ? "" : "roofline not drawn: " + why;
}

RooflineJob start_roofline(const std::string& dir, const json& spec) {
  RooflineJob job;
  if (!roofline_has_data(spec)) {
    job.note_ = "roofline not drawn: no kernel has a duration and FLOPs or memory traffic";
    return job;
  }
  try {
    make_dirs(dir);
  } catch (const Error& e) {
    job.note_ = std::string("roofline not drawn: ") + e.what();
    return job;
  }
  job.drawing_ = draw_chart(ChartKind::Roofline, json_text(spec, -1), join_path(dir, "roofline.svg"),
                            join_path(dir, "roofline.png"));
  return job;
}

std::string write_roofline(const std::string& dir, const json& spec) { return start_roofline(dir, spec).note(); }

}  // namespace kprof
