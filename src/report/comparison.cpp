#include "report/comparison.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/text.hpp"

namespace kprof {
namespace {

std::string opt_pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "n/a"; }
std::string opt_ms(const std::optional<double>& v) { return v ? fmt_duration_ms(*v) : "n/a"; }

/// "80.3% (at most 1.25x faster)", or "n/a".
std::string bound_cell(const VersionRow& r) {
  if (!r.pct_of_bound) return "n/a";
  return fmt::format("{:.1f}% (at most {:.2f}x faster)", *r.pct_of_bound, r.max_speedup.value_or(1.0));
}

/// kprof's noise rule (README.md): two medians differ by at most the larger of the two versions'
/// standard deviations over their timed calls. Both rows must have a time.
bool within_noise(const VersionRow& a, const VersionRow& b) {
  double noise = std::max(a.spread_ms.value_or(0.0), b.spread_ms.value_or(0.0));
  return std::fabs(*a.time_ms - *b.time_ms) <= noise;
}

}  // namespace

std::vector<RowComparison> compare_versions(const std::vector<VersionRow>& rows) {
  std::vector<RowComparison> out(rows.size());
  int base = -1;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].time_ms) { base = static_cast<int>(i); break; }
  int fastest = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& c = out[i];
    const auto& r = rows[i];
    if (!r.time_ms || base < 0) { c.verdict = "n/a"; continue; }
    if (r.correct && (fastest < 0 || *r.time_ms < *rows[static_cast<size_t>(fastest)].time_ms))
      fastest = static_cast<int>(i);
    const auto& b = rows[static_cast<size_t>(base)];
    c.speedup = *b.time_ms / *r.time_ms;
    if (static_cast<int>(i) == base) { c.verdict = "baseline"; continue; }
    if (within_noise(r, b)) c.verdict = "same (within noise)";
    else c.verdict = *r.time_ms < *b.time_ms ? "faster" : "slower";
  }
  if (fastest < 0) return out;
  const VersionRow& f = rows[static_cast<size_t>(fastest)];
  out[static_cast<size_t>(fastest)].fastest = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (static_cast<int>(i) == fastest || !r.correct || !r.time_ms) continue;
    out[i].tied_with_fastest = within_noise(r, f);
  }
  return out;
}

std::string comparison_markdown(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                                const std::vector<std::pair<std::string, std::string>>& header,
                                const std::string& basis) {
  std::string md = "# Comparison of kernel versions\n\n";
  std::vector<std::vector<std::string>> h;
  for (const auto& [k, v] : header) h.push_back({k, v});
  h.push_back({"Time compared", basis});
  md += markdown_table({"Item", "Value"}, h);
  std::vector<std::vector<std::string>> t;
  std::string fastest_name;
  std::vector<std::string> tied;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (cmp[i].fastest) fastest_name = rows[i].name;
    if (cmp[i].tied_with_fastest) tied.push_back(rows[i].name);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& c = cmp[i];
    std::string label = r.name;
    if (c.fastest) label = "**" + r.name + "** (fastest)";
    else if (c.tied_with_fastest) label = "**" + r.name + "** (as fast, within noise)";
    t.push_back({label, r.correctness,
                 r.time_ms ? fmt::format("{} ± {}", fmt_duration_ms(*r.time_ms), opt_ms(r.spread_ms)) : "n/a",
                 c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "n/a", c.verdict, r.cls, opt_pct(r.sm_sol),
                 opt_pct(r.mem_sol), opt_pct(r.achieved_occupancy), r.leading_stall.empty() ? "n/a" : r.leading_stall,
                 bound_cell(r), r.top_finding.empty() ? "none" : r.top_finding, opt_ms(r.call_ms), opt_ms(r.kernel_ms)});
  }
  md += "\n" + markdown_table({"Version", "Correctness", "Median time ± std", "Speedup vs first", "vs first",
                               "Class", "SM SOL", "Memory SOL", "Achieved occupancy", "Leading stall",
                               "% of bound", "Top finding (est. gain)", "Call time (events)", "Kernel time (CUPTI)"},
                              t);
  std::string notes;
  for (const auto& r : rows)
    if (!r.note.empty()) notes += "- " + r.name + ": " + r.note + "\n";
  if (!notes.empty()) md += "\nNotes:\n\n" + notes;
  if (!fastest_name.empty()) {
    md += "\nFastest correct version: " + fastest_name;
    if (!tied.empty())
      md += fmt::format("; {} {} within noise of it, so the measurement cannot rank {} against it",
                        fmt::join(tied, ", "), tied.size() == 1 ? "is" : "are", tied.size() == 1 ? "it" : "them");
    md += ".\n";
  }
  md += "\n\"same (within noise)\": the difference of medians is at most the larger of the two versions' "
        "standard deviations over their timed calls. \"% of bound\": the version's time bound (the least bytes at "
        "the achievable DRAM bandwidth, the declared FLOPs at the peak of the precision used) over its measured time; "
        "near 100% there is little left to gain (docs/CLASSIFICATION.md); roofline.svg shows every version's leading "
        "kernel against the GPU's ceilings. Versions that fail correctness are not profiled. "
        "Each version's folder holds its correctness.md, ncu_summary.md, ncu_details.md, profile.json and "
        "profile.ncu-rep.\n";
  return md;
}

nlohmann::json comparison_json(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                               const std::vector<std::pair<std::string, std::string>>& header,
                               const std::string& basis) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json j;
  for (const auto& [k, v] : header) j["header"][k] = v;
  j["time_basis"] = basis;
  j["versions"] = nlohmann::json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto& c = cmp[i];
    j["versions"].push_back({{"name", r.name}, {"kernel", r.kernel}, {"folder", r.folder}, {"correct", r.correct},
                             {"correctness", r.correctness}, {"profiled", r.profiled}, {"time_ms", opt(r.time_ms)},
                             {"spread_ms", opt(r.spread_ms)}, {"call_ms", opt(r.call_ms)},
                             {"kernel_ms", opt(r.kernel_ms)}, {"speedup_vs_first", opt(c.speedup)},
                             {"vs_first", c.verdict}, {"fastest", c.fastest},
                             {"tied_with_fastest", c.tied_with_fastest}, {"class", r.cls},
                             {"note", r.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.note)},
                             {"sm_sol_pct", opt(r.sm_sol)}, {"memory_sol_pct", opt(r.mem_sol)},
                             {"achieved_occupancy_pct", opt(r.achieved_occupancy)}, {"leading_stall", r.leading_stall},
                             {"pct_of_bound", opt(r.pct_of_bound)}, {"bound_ms", opt(r.bound_ms)},
                             {"max_speedup", opt(r.max_speedup)}, {"bound_basis", r.bound_basis},
                             {"top_finding", r.top_finding}});
  }
  return j;
}

}  // namespace kprof
