// JSON and console-text forms of the ncu verdict (declared in report/ncu_report.hpp).
#include <fmt/format.h>

#include <cmath>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "stages/ncu/metrics.hpp"
#include "report/schema.hpp"
#include "report/hot_lines_report.hpp"
#include "report/bound_report.hpp"
#include "report/findings_report.hpp"
#include "report/ncu_report.hpp"
#include "report/timing_report.hpp"

namespace kprof {

namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json roofline_json(const KernelMetrics& k) {
  Roofline r = roofline_point(k);
  return {{"fp32_flop", optional_json(r.fp32_flop)},
          {"fp64_flop", optional_json(r.fp64_flop)},
          {"fp16_flop", optional_json(r.fp16_flop)},
          {"tensor_ops", optional_json(r.tensor_ops)},
          {"total_flop", optional_json(r.total_flop)},
          {"dram_bytes", optional_json(r.dram_bytes)},
          {"flop_per_byte", optional_json(r.intensity)},
          {"flop_per_s", optional_json(r.flop_per_s)},
          {"fp32_peak_pct", optional_json(r.fp32_peak_pct)},
          {"dram_bytes_per_s", optional_json(r.dram_bytes_per_s)},
          {"peak_dram_bytes_per_s", optional_json(r.peak_dram_bytes_per_s)}};
}

json metrics_json(const KernelMetrics& k) {
  json out = json::object();
  for (const auto& spec : metric_catalog()) {
    std::string used = spec.name;
    auto v = catalog_value(k, spec.name, &used);
    auto it = k.metrics.find(used);
    std::string unit = it != k.metrics.end() && !it->second.unit.empty() ? it->second.unit : spec.unit;
    json entry = {{"label", spec.label},
                  {"category", category_title(spec.category)},
                  {"value", optional_json(v)},
                  {"unit", unit}};
    if (used != spec.name) entry["read_from"] = used;
    out[spec.name] = entry;
  }
  return out;
}

}  // namespace

json verdict_json(const Verdict& v) {
  json evidence = json::array();
  for (const auto& e : v.evidence)
    evidence.push_back({{"check", e.check},
                        {"metric", e.metric},
                        {"value", e.number ? json(*e.number) : json(nullptr)},
                        {"unit", e.unit},
                        {"text", e.value},
                        {"threshold", e.threshold},
                        {"holds", e.holds}});
  json signals = json::array();
  for (const auto& s : v.signals)
    signals.push_back({{"symptom", s.symptom},
                       {"metric", s.metric},
                       {"value", s.number ? json(*s.number) : json(nullptr)},
                       {"unit", s.unit},
                       {"text", s.value},
                       {"threshold", s.threshold},
                       {"ideal", s.ideal},
                       {"fires", signal_state_name(s.state)},
                       {"likely_issue", s.likely_issue},
                       {"missing", s.missing}});
  json efficiency = v.efficiency ? json{{"unit", v.efficiency->unit},
                                        {"metric", v.efficiency->metric},
                                        {"pct", v.efficiency->pct},
                                        {"all", v.efficiency->all}}
                                 : json(nullptr);
  return {{"class", bottleneck_name(v.cls)},
          {"limiter", v.limiter},
          {"summary", v.summary},
          {"evidence", evidence},
          {"signals", signals},
          {"next_sections", v.next_sections},
          {"missing_metrics", v.missing_metrics},
          {"not_concluded", v.not_concluded},
          {"leading_stalls", v.leading_stalls},
          {"implementation_efficiency", efficiency},
          {"units", units_json(v)},
          {"findings", findings_json(v)},
          {"negligible_findings", negligible_json(v)},
          {"not_measured", not_measured_json(v)},
          {"findings_note", v.findings_note},
          {"ncu_rules", rules_json(v.ncu_rules)},
          {"ncu_rules_note", v.ncu_rules_note}};
}

json ncu_json(const MetricTable& table, const CallVerdict& call, const NcuReportHeader& header) {
  json kernels = json::array();
  for (size_t i = 0; i < table.kernels.size() && i < call.kernels.size(); ++i) {
    const KernelMetrics& k = table.kernels[i];
    kernels.push_back({{"id", k.id},
                       {"name", k.name},
                       {"block", k.block},
                       {"grid", k.grid},
                       {"device", k.device},
                       {"cc", k.cc},
                       {"gpu_time_ns", number_or_null(call.kernels[i].gpu_time_ns)},
                       {"metrics", metrics_json(k)},
                       {"roofline", roofline_json(k)},
                       {"verdict", verdict_json(call.kernels[i])}});
    auto hl = header.hot_lines.find(k.id);
    kernels.back()["hot_lines"] = hl != header.hot_lines.end() ? hot_lines_json(hl->second) : json(nullptr);
  }
  json call_json = {
      {"class", bottleneck_name(call.cls())},
      {"leading_kernel", call.leading_name},
      {"leading_id", call.leading >= 0 ? json(call.kernels[static_cast<size_t>(call.leading)].id) : json(nullptr)},
      {"leading_share_pct", call.total_gpu_time_ns > 0 ? json(call.leading_share_pct) : json(nullptr)},
      {"total_gpu_time_ns", call.total_gpu_time_ns > 0 ? json(call.total_gpu_time_ns) : json(nullptr)},
      {"bound", call.bound ? bound_json(*call.bound) : json(nullptr)},
      {"implementation_bound",
       call.implementation_bound ? implementation_bound_json(*call.implementation_bound) : json(nullptr)},
      {"ceilings", call.ceilings ? ceilings_json(*call.ceilings) : json(nullptr)},
      {"timing_vs_ncu", call.clocks ? json{{"gap_pct", call.clocks->gap_pct},
                                           {"beyond_noise", call.clocks->beyond_noise},
                                           {"tolerance_ms", call.clocks->tolerance_ms},
                                           {"cycle_gap_pct", optional_json(call.clocks->cycle_gap_pct)},
                                           {"clocks_explain", call.clocks->clocks_explain},
                                           {"text", call.clocks->text}}
                                    : json(nullptr)}};
  json out = {{"schema_version", kReportSchemaVersion}, {"kernels", kernels}, {"call", call_json}};
  if (header.timing) out["timing"] = timing_json(*header.timing);
  if (!header.hot_lines_note.empty()) out["hot_lines_note"] = header.hot_lines_note;
  return out;
}

std::string verdict_text(const CallVerdict& call) {
  std::string out;
  std::vector<size_t> shown = kernels_to_detail(call);
  for (size_t i : shown) {
    const Verdict& v = call.kernels[i];
    out += fmt::format("{} [ID {}] {}: {}{}\n", v.kernel, v.id, format_value(v.gpu_time_ns, "ns"),
                       bottleneck_name(v.cls), v.limiter.empty() ? "" : " (" + v.limiter + ")");
    out += "  " + v.summary + "\n";
    for (const auto& e : v.evidence)
      out += fmt::format("  - [{}] {}: {}; threshold {}; from {}\n", e.holds ? "yes" : "no", e.check, e.value,
                         e.threshold, e.metric);
    for (const auto& s : v.signals)
      if (s.state == SignalState::Fires) out += fmt::format("  ! {}: {} -> {}\n", s.symptom, s.value, s.likely_issue);
    bool leads = call.leading >= 0 && &call.kernels[static_cast<size_t>(call.leading)] == &v;
    if (leads && !call.bound && call.implementation_bound)
      out += "  " + implementation_bound_sentence(*call.implementation_bound) + "\n";
    out += findings_text(call, v);
    for (const auto& s : v.not_concluded) out += "  not concluded: " + s + "\n";
    if (!v.missing_metrics.empty())
      out += fmt::format("  ({} catalog metrics missing from this report: listed in ncu_summary.md)\n",
                         v.missing_metrics.size());
    if (!v.next_sections.empty()) {
      out += "  read next in the ncu report:";
      for (size_t i = 0; i < v.next_sections.size(); ++i) out += (i ? ", " : " ") + v.next_sections[i];
      out += "\n";
    }
  }
  if (shown.size() < call.kernels.size())
    out += fmt::format("({} more launches with less GPU time: see ncu_summary.md and ncu_details.md)\n",
                       call.kernels.size() - shown.size());
  if (call.kernels.size() > 1 && call.leading >= 0) {
    const Verdict& lead = call.kernels[static_cast<size_t>(call.leading)];
    out += fmt::format("call: led by {} [ID {}] with {} of the GPU time: {}\n", lead.kernel, lead.id,
                       format_value(call.leading_share_pct, "%"), bottleneck_name(lead.cls));
  }
  return out;
}

}  // namespace kprof
