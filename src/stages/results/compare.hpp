// `kprof compare`'s logic over saved results (no I/O): versions paired by name across runs, the
// noise-aware comparison of `kprof run` with the cross-run noise rule, the header warnings and the
// regression gate. flows/compare.hpp reads the files; report/compare_report.hpp renders.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stages/results/versions.hpp"
#include "stages/timing/decision.hpp"

namespace kprof {

/// Two runs whose median SM clocks differ by more than this ran in different clock states (2%: the
/// timing passes' clock comparison, timing.hpp kDurationClockTolerance). Source: kprof's rule.
inline constexpr double kClockStateTolerance = 0.02;

/// One saved result: a comparison.json of `kprof run`, a profile.json of `kprof profile` (with
/// the correctness.json beside it when present), or a folder holding one of them.
struct CompareInput {
  std::string path;                           ///< the file read
  std::string label;                          ///< short name in tables: "A", "B", ...
  int schema_version = 1;                     ///< the file's schema_version (1 when absent)
  std::map<std::string, std::string> header;  ///< GPU, Dimensions, Seed, ... as saved
  std::vector<VersionRow> rows;               ///< its versions (one for a profile.json)
};

/// One version of the baseline (or new in a later file) across the inputs.
struct VersionAcross {
  std::string name;
  std::vector<std::optional<VersionRow>> rows;  ///< one per input, nullopt where the version is missing
  std::vector<RowComparison> cmp;               ///< per input, against the baseline's row (cross-run rule)
  /// Per input, the decision against the baseline's row across runs: with one run per side never
  /// keep or revert from the times (inconclusive: "runs on this machine differ by up to 2%"), a
  /// revert only when the version is no longer correct; unset without a time on both sides.
  std::vector<std::optional<CandidateDecision>> decision;
};

/// The outcome of the gate for one version in one later input.
struct GateFailure {
  std::string version;
  std::string input;   ///< its label
  std::string reason;  ///< "missing", "no longer correct: ...", "slower by 12.3% (beyond noise and 5%)"
};

/// Everything `kprof compare` found.
struct CompareResult {
  std::vector<CompareInput> inputs;
  std::vector<std::string> warnings;  ///< other GPU, dimensions, seed or schema_version than the baseline
  std::vector<VersionAcross> versions;
  std::optional<double> fail_if_slower_pct;  ///< the gate's threshold, % (unset: no gate)
  std::vector<GateFailure> failures;         ///< the gate's failures (empty without a gate)
  int exit_code = 0;                         ///< 1 when the gate failed, else 0
};

/// Pairs the inputs' versions by name (the first input is the baseline; versions only in later
/// inputs follow the baseline's), compares each with the cross-run NoiseRule{kCrossRunNoiseFloor}
/// for the speedup, collects the header warnings and the warnings of rows that timed another thing
/// (kernel against call time, another clock state beyond kClockStateTolerance), and decides each
/// later row against the baseline's with the run as the unit: one run per side supports no
/// faster / slower / same and no keep / revert (VersionAcross::decision, the vs-first column
/// inconclusive). The gate (`fail_if_slower_pct`) fails a version missing from a later input, or
/// correct in the baseline and not in the later input; a slowdown is the pytest gate's to find by
/// re-timing the baseline beside the candidate (python/kprof/pytest_plugin.py).
CompareResult compare_inputs(std::vector<CompareInput> inputs, std::optional<double> fail_if_slower_pct);

}  // namespace kprof
