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
  /// Per input, the keep / revert / inconclusive rule of `kprof run --decide` against the
  /// baseline's row (decision.hpp decide_unpaired: no pairs across runs; floor kCrossRunNoiseFloor,
  /// --min-gain the gate's threshold or kDefaultMinGain); unset without per-call samples on both.
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
/// inputs follow the baseline's), compares each with the cross-run NoiseRule{kCrossRunNoiseFloor},
/// collects the header warnings, decides each later row against the baseline's
/// (VersionAcross::decision), and applies the gate when `fail_if_slower_pct` is set: a version
/// fails when it is missing from a later input, was correct in the baseline and is not in the later
/// input, or its decision is revert with the threshold as --min-gain (the rule of `kprof run
/// --decide`; without samples: slower beyond noise AND by more than the threshold).
CompareResult compare_inputs(std::vector<CompareInput> inputs, std::optional<double> fail_if_slower_pct);

}  // namespace kprof
