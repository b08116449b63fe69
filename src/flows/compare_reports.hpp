// `kprof compare` over Nsight Compute reports (.ncu-rep, .ncu-repz or raw-page CSV exports, read as
// `kprof analyze` reads them): the first report is the baseline, each other one is paired with it
// kernel by kernel (stages/results/report_diff.hpp). flows/compare.cpp dispatches here when every
// input is a report.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// True for a path kprof compare reads as an Nsight Compute report: .ncu-rep, .ncu-repz or .csv.
bool is_ncu_report_path(const std::string& path);

/// Reads and analyses every report, diffs each against the first, writes DIR/comparison.md,
/// DIR/comparison.json (report/report_diff_report.hpp) and, with `html`, DIR/report.html; prints
/// the summary. Returns 0. Throws Error (exit 2) for an unreadable report, and for
/// `fail_if_slower_pct`: a report's time ratio is one sample and never feeds the gate.
int run_compare_reports(const std::vector<std::string>& paths, std::optional<double> fail_if_slower_pct,
                        const std::string& output_dir, bool html);

}  // namespace kprof
