// The one path from an ncu export to a verdict, shared by `kprof profile` (after its own ncu
// run) and `kprof analyze` (on an existing report), so the two cannot disagree.
#pragma once

#include <string>
#include <vector>

#include "analysis/assess.hpp"
#include "analysis/verdict.hpp"
#include "ncu/metric_table.hpp"

namespace kprof {

/// A parsed and classified ncu export.
struct NcuAnalysis {
  MetricTable table;    ///< the export, values in base units
  CallVerdict verdict;  ///< per-kernel verdicts and the call's leading kernel
};

/// parse_ncu_raw_csv + assess_call (classification, findings, and with `ctx` the time bound,
/// ncu's rule results and the clock check). Throws usage_error (exit 2) when the text is not an
/// ncu export. An export with no kernels gives an empty verdict (check `table.kernels`).
NcuAnalysis analyze_ncu_csv(const std::string& csv_text, const AnalysisContext& ctx = {});

/// assess_call on a table already parsed (a CSV export or a report read through ncu_report).
NcuAnalysis analyze_metric_table(MetricTable table, const AnalysisContext& ctx = {});

/// True when at least one kernel received a class (its Speed of Light metrics were there).
bool has_usable_metrics(const NcuAnalysis& a);

/// The command that exports a .ncu-rep as kprof reads it:
/// {ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"}.
std::vector<std::string> ncu_export_argv(const std::string& ncu, const std::string& report);

/// The CSV text of an ncu report. A path ending in ".ncu-rep" is exported with ncu_export_argv
/// (ncu found on PATH, at most `timeout_s` seconds); any other file is read as an exported CSV.
/// Throws usage_error (exit 2) when the file is missing, when ncu is not on PATH for a .ncu-rep,
/// or when ncu cannot read it (its last error line quoted); check_failed (exit 1) when ncu runs
/// past `timeout_s`.
std::string read_ncu_export(const std::string& path, double timeout_s = 300.0);

}  // namespace kprof
