// Opening an existing ncu report for `kprof analyze`: a .ncu-rep through Nsight Compute's Python
// module ncu_report (metrics, per-instruction source counters, rule results; no ncu executable
// needed), else through `ncu --import ... --csv` (metrics only); a CSV export as it is.
#pragma once

#include <optional>
#include <string>

#include "ncu/metric_table.hpp"
#include "ncu/ncu_rep.hpp"

namespace kprof {

/// A report opened for analysis.
struct LoadedReport {
  MetricTable table;          ///< every launch's metrics, base units
  std::optional<NcuRep> rep;  ///< the report as ncu_report read it (source counters, rules), when it did
  std::string reader;         ///< how it was read: "ncu_report: <origin>", "ncu --import (CSV)", "CSV export"
  std::string source_note;    ///< why there are no hot lines ("" when `rep` holds source counters)
};

/// Opens `path`. A .ncu-rep: ncu_report when it imports (ncu_rep.hpp), else ncu's CSV export
/// (read_ncu_export, with `timeout_s`), and `source_note` says what to install for the hot lines;
/// any other file: a raw-page CSV. Throws usage_error (exit 2) for a missing file, a folder, an
/// unreadable report, or a .ncu-rep when neither ncu_report nor ncu is available (hint: both
/// ways to install); check_failed (exit 1) when the export runs past `timeout_s`.
LoadedReport load_ncu_report(const std::string& path, double timeout_s = 300.0);

}  // namespace kprof
