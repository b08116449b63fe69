// comparison.md / comparison.json / terminal text of `kprof compare` over Nsight Compute reports
// (stages/results/report_diff.hpp), and the reports' roofline points for the page.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "stages/results/report_diff.hpp"

namespace kprof {

/// One analysed report with its label (path), in the order given (the first is the baseline).
struct LabelledReport {
  std::string label;
  const NcuAnalysis* analysis = nullptr;
};

/// comparison.json of a report comparison: {"schema_version", "kind": "ncu_reports", "note"
/// (kOneSampleNote), "samples_per_side": 1, "reports": [{label, class, leading_kernel, ceilings,
/// kernels: [{id, name, gpu_time_ns, class, roofline}]}], "diffs": [{before, after, pairs: [{name,
/// after_name, occurrence, paired_by ("name" | "launch order"), before/after: {id, gpu_time_ns,
/// class, sm_sol_pct, sm_unit, sm_unit_busy_pct, memory_sol_pct, memory_unit,
/// memory_unit_busy_pct}, time_ratio (after/before), speedup (before/after), findings_gone,
/// findings_appeared, moved: [{metric, label, unit, before, after, change_pct}]}], only_before,
/// only_after}]}. Times in ns, SOL and busy in %.
nlohmann::json report_diff_json(const std::vector<LabelledReport>& reports, const std::vector<ReportDiff>& diffs);

/// comparison.md: the note, then per diff the pair table and per pair its moved metrics.
std::string report_diff_markdown(const std::vector<ReportDiff>& diffs);

/// The terminal summary: one line per pair.
std::string report_diff_text(const std::vector<ReportDiff>& diffs);

}  // namespace kprof
