// kprof analyze REPORT as a flow: the bottleneck verdict for an existing Nsight Compute report
// (.ncu-rep, .ncu-repz or a raw-page CSV), its reports written whole once (flows/analyze.cpp).
#pragma once

#include <cstddef>
#include <string>

#include "api/defaults.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/hot_lines.hpp"

namespace kprof {

/// What `kprof analyze` was asked (cli/cmd_analyze.cpp parses it).
struct AnalyzeOptions {
  std::string report;  ///< .ncu-rep / .ncu-repz / raw-page CSV
  std::string output_dir = api::kDefaultAnalyzeDir;
  bool json = false;
  bool no_roofline = false;
  bool no_html = false;                       ///< --no-html: no DIR/report.html
  bool html_no_source = false;                ///< --html-no-source: the page leaves source lines and SASS out
  double timeout_s = kDefaultExportTimeoutS;  ///< seconds allowed for ncu to export a .ncu-rep
  size_t top = kDefaultHotLinesTop;           ///< hot lines per kernel
  bool sass = false;
};

/// Reads REPORT (through ncu_report when it imports, else exported by ncu and streamed), classifies
/// every launch, writes DIR/ncu_summary.md, ncu_details.md, roofline.svg (and analysis.json with
/// --json) and prints the verdict. Returns 0. Throws kprof::Error: usage (exit 2) for an unusable
/// -o, an unreadable or damaged report or impossible values only; check_failed (exit 1) when the
/// report holds no kernel or no kernel has the Speed of Light metrics.
int run_analyze(const AnalyzeOptions& o);

/// One report read and analysed the way `kprof analyze` reads it (ncu_report when it imports, else
/// ncu's CSV export or the CSV itself, streamed), for `kprof compare` of reports. `timeout_s`
/// bounds ncu's export. Throws kprof::Error as run_analyze does for an unreadable report.
NcuAnalysis read_report_analysis(const std::string& path, double timeout_s);

}  // namespace kprof
