// Opening an existing .ncu-rep for `kprof analyze` through Nsight Compute's Python module
// ncu_report (metrics, per-instruction source counters, rule results; no ncu executable needed).
// Everything else (a CSV export, a .ncu-repz, a .ncu-rep without ncu_report) is exported through
// ncu and streamed (stages/analysis/analyze_stream.hpp).
#pragma once

#include <optional>
#include <string>

#include "stages/ncu/metric_table.hpp"
#include "stages/ncu/ncu_rep.hpp"

namespace kprof {

/// A report opened through ncu_report.
struct LoadedReport {
  MetricTable table;   ///< every launch's metrics, base units
  NcuRep rep;          ///< the report as ncu_report read it (source counters, rules)
  std::string reader;  ///< "ncu_report: <origin>"
};

/// `path` read through ncu_report when it is a .ncu-rep and a module imports (ncu_rep.hpp); nullopt
/// otherwise, with `why_not` saying why (for a .ncu-rep: where it looked and what to install).
/// Throws usage_error (exit 2) when ncu_report cannot read the file.
std::optional<LoadedReport> load_with_ncu_report(const std::string& path, std::string* why_not);

}  // namespace kprof
