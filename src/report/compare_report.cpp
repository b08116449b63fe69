#include "report/compare_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/text.hpp"
#include "report/comparison.hpp"
#include "report/decision_report.hpp"
#include "report/schema.hpp"

namespace kprof {
namespace {

/// The rows of every version across the inputs, named "NAME @ LABEL", with their comparisons.
void flatten(const CompareResult& r, std::vector<VersionRow>& rows, std::vector<RowComparison>& cmp) {
  for (const auto& v : r.versions)
    for (size_t i = 0; i < v.rows.size(); ++i) {
      VersionRow row;
      if (v.rows[i])
        row = *v.rows[i];
      else {
        row.name = v.name;
        row.status = VersionStatus::NotRun;
        row.status_reason = "missing from " + r.inputs[i].path;
      }
      row.name = v.name + " @ " + r.inputs[i].label;
      rows.push_back(row);
      cmp.push_back(v.cmp[i]);
    }
}

/// One headline metric of a version: its baseline value, a later value and the change.
struct Delta {
  std::string metric;
  std::string base, now, change;
};

std::string opt_fmt(const std::optional<double>& v, const char* unit) {
  if (!v) return "n/a";
  if (std::string(unit) == "ms") return fmt_duration_ms(*v);
  if (std::string(unit) == "B") return fmt_bytes(*v);
  return fmt::format("{:.1f}%", *v);
}

/// time and bytes change in % of the baseline; percentages in points.
std::string change(const std::optional<double>& a, const std::optional<double>& b, bool relative) {
  if (!a || !b) return "n/a";
  if (relative) return *a != 0 ? fmt::format("{:+.1f}%", (*b / *a - 1.0) * 100.0) : "n/a";
  return fmt::format("{:+.1f} points", *b - *a);
}

std::vector<Delta> deltas(const VersionRow& a, const VersionRow& b) {
  std::vector<Delta> d = {
      {"time", opt_fmt(a.time_ms, "ms"), opt_fmt(b.time_ms, "ms"), change(a.time_ms, b.time_ms, true)},
      {"SM SOL", opt_fmt(a.sm_sol, "%"), opt_fmt(b.sm_sol, "%"), change(a.sm_sol, b.sm_sol, false)},
      {"memory SOL", opt_fmt(a.mem_sol, "%"), opt_fmt(b.mem_sol, "%"), change(a.mem_sol, b.mem_sol, false)},
      {"% of bound", opt_fmt(a.pct_of_bound, "%"), opt_fmt(b.pct_of_bound, "%"),
       change(a.pct_of_bound, b.pct_of_bound, false)},
      {"achieved occupancy", opt_fmt(a.achieved_occupancy, "%"), opt_fmt(b.achieved_occupancy, "%"),
       change(a.achieved_occupancy, b.achieved_occupancy, false)},
      {"DRAM bytes", opt_fmt(a.dram_bytes, "B"), opt_fmt(b.dram_bytes, "B"), change(a.dram_bytes, b.dram_bytes, true)}};
  std::string sa = leading_stall_text(a), sb = leading_stall_text(b);
  d.push_back({"leading stall", sa.empty() ? "n/a" : sa, sb.empty() ? "n/a" : sb,
               a.leading_stall == b.leading_stall ? "same reason" : "other reason"});
  return d;
}

/// The headline changes of every version in every later input, as table rows.
std::vector<std::vector<std::string>> delta_rows(const CompareResult& r) {
  std::vector<std::vector<std::string>> t;
  for (const auto& v : r.versions) {
    if (!v.rows[0]) continue;
    for (size_t i = 1; i < v.rows.size(); ++i) {
      if (!v.rows[i]) continue;
      for (const auto& d : deltas(*v.rows[0], *v.rows[i]))
        t.push_back({v.name, r.inputs[0].label + " -> " + r.inputs[i].label, d.metric, d.base, d.now, d.change});
    }
  }
  return t;
}

std::string gate_text(const CompareResult& r) {
  if (!r.fail_if_slower_pct) return "";
  if (r.failures.empty())
    return fmt::format(
        "Gate (--fail-if-slower {:g}%): passed: none missing, none no longer correct (saved runs decide no "
        "slowdown: re-time both in one run, as the pytest gate does, with kprof run BASE NEW --decide).\n",
        *r.fail_if_slower_pct);
  std::string s = fmt::format("Gate (--fail-if-slower {:g}%): FAILED:\n", *r.fail_if_slower_pct);
  for (const auto& f : r.failures) s += fmt::format("- {} in {}: {}\n", f.version, f.input, f.reason);
  return s;
}

/// One line per version and later input: the keep / revert / inconclusive rule against the baseline.
std::string decision_lines(const CompareResult& r) {
  std::string s;
  for (const auto& v : r.versions)
    for (size_t i = 1; i < v.decision.size(); ++i)
      if (v.decision[i]) {
        const std::string id = decision_id(v.decision[i]->decision);
        s += fmt::format("- {} {} -> {}: **{}**{}\n", v.name, r.inputs[0].label, r.inputs[i].label, id,
                         decision_text(*v.decision[i]).substr(id.size()));
      }
  if (s.empty()) return s;
  return fmt::format(
             "\n## Decision against the baseline (across runs: the run is the unit)\n\nOne run on each side "
             "supports no keep or revert: runs of one kernel differ by up to {:g}% here (kprof's between-run "
             "figure). A version no longer correct is reverted.\n\n",
             100 * kCrossRunNoiseFloor) +
         s;
}

const std::vector<std::string> kDeltaColumns = {"Version", "Runs", "Metric", "Baseline", "Now", "Change"};

}  // namespace

std::string compare_markdown(const CompareResult& r) {
  std::string md = "# Comparison of saved results\n\n";
  std::vector<std::vector<std::string>> h;
  for (const auto& in : r.inputs) {
    auto gpu = in.header.find("GPU");
    h.push_back({in.label + (&in == &r.inputs.front() ? " (baseline)" : ""), in.path,
                 gpu == in.header.end() ? "(not recorded)" : gpu->second, std::to_string(in.schema_version)});
  }
  md += markdown_table({"Input", "File", "GPU", "schema_version"}, h);
  if (!r.warnings.empty()) {
    md += "\nWarnings:\n\n";
    for (const auto& w : r.warnings) md += "- " + w + "\n";
  }
  std::vector<VersionRow> rows;
  std::vector<RowComparison> cmp;
  flatten(r, rows, cmp);
  md += "\n" + versions_table_markdown(rows, cmp);
  md += "\n## Headline changes against the baseline\n\n" + markdown_table(kDeltaColumns, delta_rows(r));
  md += decision_lines(r);
  std::string g = gate_text(r);
  if (!g.empty()) md += "\n" + g;
  md += fmt::format(
      "\n\"vs first\" and the decision across runs: the run is the unit. One run on each side cannot show how "
      "much runs of one kernel differ (on this machine up to {:g}%, kprof's between-run figure), so neither says "
      "faster, slower, same, keep or revert; the speedup is shown for reading (docs/METHOD.md, \"Across runs\"). "
      "To decide, time both in one run: kprof run BASE NEW --decide. Versions are paired by name; the first input "
      "is the baseline.\n",
      kCrossRunNoiseFloor * 100);
  return md;
}

nlohmann::json compare_json(const CompareResult& r) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["noise_floor_pct"] = kCrossRunNoiseFloor * 100;
  // Issue 49: across runs the run is the unit (no keep / revert / faster / slower from one run a side).
  j["across_runs_rule"] = "run_as_unit";
  j["inputs"] = nlohmann::json::array();
  for (const auto& in : r.inputs)
    j["inputs"].push_back(
        {{"label", in.label}, {"path", in.path}, {"schema_version", in.schema_version}, {"header", in.header}});
  j["warnings"] = r.warnings;
  j["versions"] = nlohmann::json::array();
  for (const auto& v : r.versions) {
    nlohmann::json runs = nlohmann::json::array();
    for (size_t i = 0; i < v.rows.size(); ++i) {
      nlohmann::json run = {{"input", r.inputs[i].label}};
      run["row"] = v.rows[i] ? nlohmann::json(*v.rows[i]) : nlohmann::json(nullptr);
      run["comparison"] = v.cmp[i];
      if (i < v.decision.size() && v.decision[i]) run["decision"] = candidate_decision_json(*v.decision[i]);
      runs.push_back(run);
    }
    j["versions"].push_back({{"name", v.name}, {"runs", runs}});
  }
  nlohmann::json gate = nullptr;
  if (r.fail_if_slower_pct) {
    gate = {{"fail_if_slower_pct", *r.fail_if_slower_pct}, {"passed", r.failures.empty()}};
    gate["failures"] = nlohmann::json::array();
    for (const auto& f : r.failures)
      gate["failures"].push_back({{"version", f.version}, {"input", f.input}, {"reason", f.reason}});
  }
  j["gate"] = gate;
  j["exit_code"] = r.exit_code;
  return j;
}

std::string compare_text(const CompareResult& r) {
  std::vector<VersionRow> rows;
  std::vector<RowComparison> cmp;
  flatten(r, rows, cmp);
  std::string s = versions_summary_text(rows, cmp);
  auto d = delta_rows(r);
  if (!d.empty()) s += "\n" + markdown_table(kDeltaColumns, d);
  const std::string dl = decision_lines(r);
  if (!dl.empty()) s += dl;
  std::string g = gate_text(r);
  if (!g.empty()) s += "\n" + g;
  return s;
}

}  // namespace kprof
