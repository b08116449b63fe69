// The one path from an ncu export to a verdict, shared by `kprof profile` (after its own ncu
// run) and `kprof analyze` (on an existing report), so the two cannot disagree.
#pragma once

#include <string>
#include <vector>

#include "stages/analysis/assess.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/ncu/value_range.hpp"

namespace kprof {

/// Default of `kprof analyze --timeout`, seconds ncu may take to export a .ncu-rep.
inline constexpr double kDefaultExportTimeoutS = 300.0;

/// A parsed and classified ncu export.
struct NcuAnalysis {
  MetricTable table;    ///< the export, values in base units (impossible values removed)
  CallVerdict verdict;  ///< per-kernel verdicts and the call's leading kernel
  /// Impossible values removed before classifying ("launch 3: sm__throughput... = -50 %: negative").
  std::vector<std::string> invalid_values;
};

/// The line a verdict's not_concluded gets for a value removed by drop_invalid_values:
/// "impossible value ignored: <describe(v)>".
std::string impossible_value_note(const InvalidValue& v);

/// parse_ncu_raw_csv + analyze_metric_table. Throws usage_error (exit 2) when the text is not an
/// ncu export. An export with no kernels gives an empty verdict (check `table.kernels`).
NcuAnalysis analyze_ncu_csv(const std::string& csv_text, const AnalysisContext& ctx = {});

/// drop_invalid_values on every launch (each one noted in its verdict's not_concluded and in
/// `invalid_values`), then assess_call (classification, findings, and with `ctx` the time bound,
/// ncu's rule results and the clock check), on a table already parsed (a CSV export or a report
/// read through ncu_report).
NcuAnalysis analyze_metric_table(MetricTable table, const AnalysisContext& ctx = {});

/// True when at least one kernel received a class (its Speed of Light metrics were there).
bool has_usable_metrics(const NcuAnalysis& a);

/// The command that exports a .ncu-rep as kprof reads it:
/// {ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"}.
std::vector<std::string> ncu_export_argv(const std::string& ncu, const std::string& report);

/// True for a path Nsight Compute must export first: a report (.ncu-rep) or a compressed report
/// (.ncu-repz, written by Nsight Compute 2026 and newer).
bool is_ncu_report_file(const std::string& path);

/// A CSV export of `path` on disk: `path` itself for a CSV, else ncu_export_argv run into
/// `tmp_csv` (ncu found on PATH, at most `timeout_s` seconds; stdout streamed to the file, so a
/// large report is never held in memory) and `tmp_csv` returned.
/// Throws usage_error (exit 2) when the file is missing or a folder, when ncu is not on PATH for a
/// report, or when ncu cannot read it (its last error line quoted; for a .ncu-repz also that
/// compressed reports need Nsight Compute 2026 or newer, and which ncu this is); check_failed
/// (exit 1) when ncu runs past `timeout_s`.
std::string ncu_export_csv_file(const std::string& path, const std::string& tmp_csv,
                                double timeout_s = kDefaultExportTimeoutS);

}  // namespace kprof
