// comparison.md / comparison.json of `kprof run`: one row per kernel version.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kprof {

/// One version's results, already measured.
struct VersionRow {
  std::string name;              ///< folder name (the kernel file's base name)
  std::string kernel;            ///< path
  bool correct = false;
  std::string correctness;       ///< "PASS", or "FAIL: <reason>"
  bool profiled = false;
  std::optional<double> time_ms;    ///< median used for the comparison (see ComparisonBasis)
  std::optional<double> spread_ms;  ///< its standard deviation over the timed calls
  std::optional<double> call_ms;    ///< median call time (CUDA events)
  std::optional<double> kernel_ms;  ///< median kernel time per call (CUPTI)
  std::optional<double> call_std_ms, kernel_std_ms;  ///< their standard deviations over the timed calls
  std::string cls;               ///< class or "not classified: ..." / "not profiled"
  std::optional<double> sm_sol, mem_sol, achieved_occupancy;  ///< %, from ncu
  std::string leading_stall;     ///< "long scoreboard (62%)"
  std::optional<double> pct_of_bound;  ///< time bound / measured time, % (stages/analysis/bound.hpp)
  std::optional<double> bound_ms;      ///< the time bound, ms
  std::optional<double> max_speedup;   ///< measured / bound: "at most Y x faster"
  std::string bound_basis;             ///< what the bound binds on ("memory at the achievable 4.3 TB/s")
  std::string top_finding;             ///< the finding with the largest gain, "bank conflicts (75.6%)"
  std::string folder;            ///< DIR/<name>/
  std::string note;              ///< a caveat for this row (e.g. its buffers differ from the first's)
};

/// Derived comparison of one row against the first profiled version.
struct RowComparison {
  std::optional<double> speedup;  ///< base time / this time (> 1: faster)
  std::string verdict;            ///< "baseline", "faster", "slower", "same (within noise)", "n/a"
  bool fastest = false;           ///< the fastest correct version (smallest median)
  /// A correct version other than the fastest whose median is within noise of the fastest's (the
  /// difference is at most the larger of the two standard deviations): as fast, as far as the
  /// measurement can tell.
  bool tied_with_fastest = false;
};

/// Compares every row with the first row that has a time: "same (within noise)" when the
/// difference of medians is at most the larger of the two standard deviations (kprof's rule,
/// documented in README.md), else faster/slower with the speedup. Marks the fastest correct row,
/// and every other correct row within noise of it (tied_with_fastest).
std::vector<RowComparison> compare_versions(const std::vector<VersionRow>& rows);

/// comparison.md: header table (dims, seed, buffer sizes, GPU, time basis), the version table,
/// notes.
std::string comparison_markdown(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                                const std::vector<std::pair<std::string, std::string>>& header,
                                const std::string& basis);

/// The same as JSON.
nlohmann::json comparison_json(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                               const std::vector<std::pair<std::string, std::string>>& header,
                               const std::string& basis);

}  // namespace kprof
