// Baselines of Nsight Compute reports (`kprof compare BEFORE.ncu-rep AFTER.ncu-rep ...`, or their
// raw-page CSV exports): what the Nsight Compute GUI's baselines and Proton's --diff-profile give.
// Kernels of each report are paired with the first report's (the baseline) by name and launch
// order (the n-th launch of a name with the n-th launch of that name); kernels left over on both
// sides are then paired in launch order, and the pair says so. Per pair: the time ratio, the class
// before and after, the unit behind each Speed of Light, the findings that went away or appeared,
// and the metrics that moved most. A report holds one profiled call per side: each ratio is ONE
// sample (no interval, no noise estimate), so it never feeds a keep/revert decision or
// --fail-if-slower. Pure: no file is read or written here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/analyze.hpp"

namespace kprof {

/// One side of a pair: the launch and what kprof concluded about it.
struct DiffSide {
  int id = -1;                            ///< ncu's launch ID in its report
  double gpu_time_ns = 0;                 ///< gpu__time_duration.sum, ns (NaN when missing)
  std::string cls;                        ///< bottleneck_name of its verdict
  std::optional<double> sm_sol, mem_sol;  ///< SM / Memory Speed of Light, % (ncu's SOL metrics)
  std::string sm_unit, mem_unit;          ///< the busiest compute / memory unit behind each SOL ("FMA pipe", "DRAM")
  std::optional<double> sm_unit_pct, mem_unit_pct;  ///< their busy %
};

/// A metric of the catalog whose value changed between the sides.
struct MetricMove {
  std::string metric;  ///< ncu metric name (the catalog's)
  std::string label;   ///< its label in reports
  std::string unit;    ///< kprof's unit for it
  double before = 0, after = 0;
  double change_pct = 0;  ///< (after / before - 1) x 100
};

/// One kernel paired across two reports.
struct KernelPairDiff {
  std::string name;        ///< the baseline's kernel name
  std::string after_name;  ///< the other report's (differs when paired by launch order)
  int occurrence = 0;      ///< 0-based launch of that name in its report
  bool by_order = false;   ///< paired by launch order because the names differ
  DiffSide before, after;
  std::optional<double> time_ratio;            ///< after / before GPU time: one sample per side
  std::vector<std::string> findings_gone;      ///< finding titles in before, not in after
  std::vector<std::string> findings_appeared;  ///< in after, not in before
  std::vector<MetricMove> moved;               ///< the metrics that moved most, largest |log ratio| first
};

/// The baseline against one other report.
struct ReportDiff {
  std::string before, after;  ///< the two reports' labels (paths)
  std::vector<KernelPairDiff> pairs;
  std::vector<std::string> only_before, only_after;  ///< kernels left unpaired ("name [ID n]")
};

/// How many metrics "moved most" keeps per pair.
inline constexpr size_t kMovedMetrics = 8;

/// The sentence every rendering carries: why a ratio here is one sample.
inline constexpr const char* kOneSampleNote =
    "each report holds one profiled call per side (ncu's replayed launch), so each time ratio is one "
    "sample: no interval, no noise estimate; it never feeds a keep/revert decision or --fail-if-slower "
    "(time several calls with kprof run or kprof profile for that)";

/// `before` against `after` (each an analysed report with its label). Pure.
ReportDiff diff_reports(const std::string& before_label, const NcuAnalysis& before, const std::string& after_label,
                        const NcuAnalysis& after);

}  // namespace kprof
