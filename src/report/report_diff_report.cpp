#include "report/report_diff_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/text.hpp"
#include "report/ncu_report.hpp"
#include "report/schema.hpp"

namespace kprof {

namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json side_json(const DiffSide& s) {
  return {{"id", s.id},
          {"gpu_time_ns", std::isfinite(s.gpu_time_ns) ? json(s.gpu_time_ns) : json(nullptr)},
          {"class", s.cls},
          {"sm_sol_pct", opt(s.sm_sol)},
          {"sm_unit", s.sm_unit},
          {"sm_unit_busy_pct", opt(s.sm_unit_pct)},
          {"memory_sol_pct", opt(s.mem_sol)},
          {"memory_unit", s.mem_unit},
          {"memory_unit_busy_pct", opt(s.mem_unit_pct)}};
}

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "n/a"; }

std::string sol_cell(const std::optional<double>& sol, const std::string& unit) {
  return pct(sol) + (unit.empty() ? "" : " (" + unit + ")");
}

std::string ratio_text(const KernelPairDiff& p) {
  if (!p.time_ratio) return "n/a";
  return fmt::format("{:.3f}x time ({:.2f}x {})", *p.time_ratio, *p.time_ratio < 1 ? 1 / *p.time_ratio : *p.time_ratio,
                     *p.time_ratio < 1 ? "faster" : "slower");
}

std::string list_or_dash(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : "; ") + s;
  return out.empty() ? "-" : out;
}

}  // namespace

json report_diff_json(const std::vector<LabelledReport>& reports, const std::vector<ReportDiff>& diffs) {
  json reps = json::array();
  for (const auto& r : reports) {
    json n = ncu_json(r.analysis->table, r.analysis->verdict);
    json ks = json::array();
    for (const auto& k : n["kernels"])
      ks.push_back({{"id", k["id"]},
                    {"name", k["name"]},
                    {"gpu_time_ns", k["gpu_time_ns"]},
                    {"class", k["verdict"]["class"]},
                    {"roofline", k["roofline"]}});
    reps.push_back({{"label", r.label},
                    {"class", n["call"]["class"]},
                    {"leading_kernel", n["call"]["leading_kernel"]},
                    {"leading_id", n["call"]["leading_id"]},
                    {"ceilings", n["call"]["ceilings"]},
                    {"kernels", ks}});
  }
  json ds = json::array();
  for (const auto& d : diffs) {
    json pairs = json::array();
    for (const auto& p : d.pairs) {
      json moved = json::array();
      for (const auto& m : p.moved)
        moved.push_back({{"metric", m.metric},
                         {"label", m.label},
                         {"unit", m.unit},
                         {"before", m.before},
                         {"after", m.after},
                         {"change_pct", m.change_pct}});
      pairs.push_back({{"name", p.name},
                       {"after_name", p.after_name},
                       {"occurrence", p.occurrence},
                       {"paired_by", p.by_order ? "launch order" : "name"},
                       {"before", side_json(p.before)},
                       {"after", side_json(p.after)},
                       {"time_ratio", opt(p.time_ratio)},
                       {"speedup", p.time_ratio ? json(1 / *p.time_ratio) : json(nullptr)},
                       {"findings_gone", p.findings_gone},
                       {"findings_appeared", p.findings_appeared},
                       {"moved", moved}});
    }
    ds.push_back({{"before", d.before},
                  {"after", d.after},
                  {"pairs", pairs},
                  {"only_before", d.only_before},
                  {"only_after", d.only_after}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"kind", "ncu_reports"},
          {"note", kOneSampleNote},
          {"samples_per_side", 1},
          {"reports", reps},
          {"diffs", ds}};
}

std::string report_diff_markdown(const std::vector<ReportDiff>& diffs) {
  std::string md = "# Comparison of Nsight Compute reports\n\nNote: " + std::string(kOneSampleNote) + ".\n";
  for (const auto& d : diffs) {
    md += "\n## " + d.before + " -> " + d.after + "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : d.pairs)
      rows.push_back(
          {p.by_order ? p.name + " -> " + p.after_name + " (launch order)" : p.name, ratio_text(p),
           p.before.cls + " -> " + p.after.cls,
           sol_cell(p.before.sm_sol, p.before.sm_unit) + " -> " + sol_cell(p.after.sm_sol, p.after.sm_unit),
           sol_cell(p.before.mem_sol, p.before.mem_unit) + " -> " + sol_cell(p.after.mem_sol, p.after.mem_unit),
           list_or_dash(p.findings_gone), list_or_dash(p.findings_appeared)});
    md += markdown_table({"Kernel", "Time (one sample)", "Class", "SM SOL (unit)", "Memory SOL (unit)", "Findings gone",
                          "Findings appeared"},
                         rows);
    for (const auto& p : d.pairs) {
      if (p.moved.empty()) continue;
      std::vector<std::vector<std::string>> mr;
      for (const auto& m : p.moved)
        mr.push_back({m.label, m.metric, fmt_sig(m.before) + " " + m.unit, fmt_sig(m.after) + " " + m.unit,
                      fmt::format("{:+.1f}%", m.change_pct)});
      md +=
          "\nMoved most, " + p.name + ":\n\n" + markdown_table({"Metric", "ncu name", "Before", "After", "Change"}, mr);
    }
    if (!d.only_before.empty()) md += "\nOnly in " + d.before + ": " + list_or_dash(d.only_before) + "\n";
    if (!d.only_after.empty()) md += "\nOnly in " + d.after + ": " + list_or_dash(d.only_after) + "\n";
  }
  return md;
}

std::string report_diff_text(const std::vector<ReportDiff>& diffs) {
  std::string s;
  for (const auto& d : diffs) {
    s += d.before + " -> " + d.after + ":\n";
    for (const auto& p : d.pairs)
      s += fmt::format("  {}{}: {}; {} -> {}; gone: {}; appeared: {}\n", display_kernel_name(p.name),
                       p.by_order ? " -> " + display_kernel_name(p.after_name) + " (launch order)" : "", ratio_text(p),
                       p.before.cls, p.after.cls, list_or_dash(p.findings_gone), list_or_dash(p.findings_appeared));
    for (const auto& k : d.only_before) s += "  only before: " + k + "\n";
    for (const auto& k : d.only_after) s += "  only after: " + k + "\n";
  }
  return s + "(one profiled call per side: each ratio is one sample)\n";
}

}  // namespace kprof
