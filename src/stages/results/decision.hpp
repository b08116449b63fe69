// The decision block of `kprof run --decide`: one keep / revert / inconclusive per candidate
// against the baseline (the first version) from the interleaved rounds (stages/timing/rounds.hpp)
// under the rule of stages/timing/decision.hpp, with the A/A floor, the band's discards and an
// optional confirmation by a second set of rounds. Values only: report/decision_report.hpp renders.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/results/versions.hpp"
#include "stages/timing/decision.hpp"
#include "stages/timing/rounds.hpp"

namespace kprof {

/// The rule in words, written into every decision block (docs/METHOD.md states it in full).
inline constexpr const char* kDecisionRuleText =
    "per-round paired ratio r = t(baseline) / t(candidate) of interleaved rounds (random order each round); "
    "99% distribution-free interval [lo, hi] of the median of ln r (order statistics); threshold "
    "T = max(A/A floor, --min-gain); keep: correct, integrity not failed and lo > ln(1 + T); revert: not "
    "correct, integrity failed, or hi < -ln(1 + T); else inconclusive. At most 1% false keep or revert per "
    "candidate.";

/// One candidate's decision in the block.
struct VersionDecision {
  std::string name;  ///< the version's folder name
  CandidateDecision decision;
};

/// What a decision run decided and how.
struct DecisionReport {
  std::string rule = kDecisionRuleText;
  DecisionRule settings;
  std::string baseline;     ///< the first version's name
  std::string basis;        ///< what a round's time is ("call time (CUDA events), median of 3 calls")
  int calls_per_round = 0;  ///< calls per arm per round
  size_t rounds = 0;        ///< rounds made (both sets with a confirmation)
  size_t rounds_kept = 0;
  size_t rounds_discarded = 0;            ///< outside the band (clock or throttle state)
  RoundBand band;                         ///< of the first set
  std::string stopped_by;                 ///< "rounds" or "time budget" (first set)
  double seconds = 0;                     ///< wall time of the rounds, all sets
  NoiseFloor floor;                       ///< the A/A arm of the first set
  bool confirmation = false;              ///< a second, independent set of rounds ran (--confirm)
  std::vector<VersionDecision> versions;  ///< every version but the baseline, in order
  std::string not_run;                    ///< why no decision was made ("" when it was)
  std::vector<std::string> notes;
};

/// The decisions of `rows` (rows[0] the baseline) from `first` (and `second`, the confirmation
/// set, or nullptr): `arm_of_row[i]` is row i's arm in the rounds, -1 when it was not timed (not
/// correct, not loaded). A row not timed gets revert when it is not correct, else inconclusive. An
/// incorrect or untimed baseline gives no decision (not_run says why).
DecisionReport decide_versions(const std::vector<VersionRow>& rows, const std::vector<int>& arm_of_row,
                               const RoundsResult& first, const RoundsResult* second, const DecisionRule& rule);

/// A version's state for the rule: correct (a status other than Pass is not; Unchecked counts as
/// correct, nothing is known against it), its first failure, its timing integrity.
CandidateState candidate_state(const VersionRow& row);

}  // namespace kprof
