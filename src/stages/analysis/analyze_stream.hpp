// `kprof analyze` on an export of any size: the raw CSV is read and classified one launch at a
// time (stages/ncu/raw_reader.hpp), only the launches with the most GPU time are kept in full, and the
// others are summed up, so memory stays a small multiple of one kernel's row (bench/RESULTS.md:
// a 200 MB export).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "stages/analysis/analyze.hpp"

namespace kprof {

/// Launches summed up: how many, their GPU time, how many of each class.
struct LaunchTotals {
  size_t launches = 0;
  double gpu_time_ns = 0;  ///< sum of gpu__time_duration.sum over those that have it, ns
  std::map<Bottleneck, size_t> classes;
};

/// One kernel name's launches over the whole export.
struct KernelNameTotals {
  std::string name;
  LaunchTotals totals;
};

/// What analyze_ncu_file found.
struct StreamedAnalysis {
  /// The launches kept in full (file order) and their verdicts: the `keep` with the most GPU time
  /// plus the call's leading launch. The call's totals, leading kernel name and share are over
  /// ALL launches, exactly as classify_call computes them on the whole table.
  NcuAnalysis kept;
  size_t launches = 0;                    ///< launches in the export
  LaunchTotals others;                    ///< the launches not kept in full
  std::vector<KernelNameTotals> by_name;  ///< per kernel name over all launches, most GPU time first
  /// Impossible values (stages/ncu/value_range.hpp) among the metrics the classifier reads, over all
  /// launches (the launches kept in full note every impossible value in their verdicts).
  size_t invalid_values = 0;
  std::vector<std::string> invalid_examples;  ///< the first few of them, described
};

/// Per column of `columns`: whether the classifier reads it, i.e. a catalog metric, its fallback or
/// a leaf of the SOL breakdowns (stages/ncu/metrics.hpp: "the classifier reads them by the names
/// listed here"). analyze_ncu_file
/// classifies every launch on these columns alone.
std::vector<bool> classifier_columns(const std::vector<std::string>& columns);

/// Called about every 2 s while reading, and once at the end when it was called before: launches
/// read, bytes read, file size.
using AnalyzeProgress = std::function<void(size_t launches, uint64_t bytes, uint64_t total_bytes)>;

/// Reads the raw-page CSV at `path` (NcuRawReader: header and ncu's units row required), removes
/// impossible values from each launch (drop_invalid_values: each one is added to that launch's
/// Verdict::not_concluded), classifies every launch (classify_kernel) on the catalog's metrics
/// (the only ones the classifier reads), and keeps `keep` launches in full (every column, classified
/// again on them). A second pass reads the leading launch when it is not among them. A long-layout export
/// (--metrics on the details page; small by nature) is read whole (analyze_ncu_csv).
/// Throws usage_error (exit 2) when the file is not an ncu export (see NcuRawReader) or cannot be read.
/// With `ctx`, the launches kept in full also get assess_verdict's findings and ncu's rule results.
StreamedAnalysis analyze_ncu_file(const std::string& path, size_t keep, const AnalyzeProgress& progress = {},
                                  const AnalysisContext& ctx = {});

}  // namespace kprof
