// The decision block of `kprof run --decide`: one keep / revert / inconclusive per candidate
// against the baseline (the first version) from the interleaved rounds (stages/timing/rounds.hpp)
// under the rule of stages/timing/decision.hpp: Holm across the candidates, the A/A arm as a check,
// the band's discards and, with --confirm, a second set of rounds pooled with the first under
// alpha spending. Values only: report/decision_report.hpp renders.
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
    "per-round paired ratio r = t(baseline) / t(candidate) of interleaved rounds (random order each round, "
    "seed drawn per run); distribution-free interval [lo, hi] of the median of ln r (order statistics) at "
    "1 - alpha/m' (Holm's step-down over the run's m candidates, alpha 1%); threshold T = --min-gain; keep: "
    "correct, integrity not failed and lo > ln(1 + T); revert: not correct, integrity failed, or hi < -ln(1 + T); "
    "else inconclusive. The A/A arm (the baseline against its own second instance) is a check: when its 99% "
    "interval excludes no change the run decides nothing. --confirm: the first set alone at 20% of alpha, both "
    "sets pooled at 80%. At most 1% false keep or revert per run's family of candidates.";

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
  size_t rounds_discarded = 0;  ///< outside the band (clock or throttle state) or with a zero-time call
  size_t zero_time_calls = 0;   ///< calls whose time was zero (no kernel ran or was recorded), all sets
  uint64_t seed = 0;            ///< the rounds' order seed (first set; the second set uses seed + 1)
  /// The A/A check failed: the baseline differed from itself, so the rule's assumption (rounds
  /// exchangeable, no carry-over between arms) does not hold in this run and nothing was decided.
  bool aa_failed = false;
  size_t candidates = 0;                  ///< candidates tested (Holm's m)
  RoundBand band;                         ///< of the first set
  std::string stopped_by;                 ///< "rounds" or "time budget" (first set)
  double seconds = 0;                     ///< wall time of the rounds, all sets
  NoiseFloor floor;                       ///< the A/A arm over every kept round (both sets with --confirm)
  bool confirmation = false;              ///< a second, independent set of rounds ran (--confirm)
  std::vector<VersionDecision> versions;  ///< every version but the baseline, in order
  std::string not_run;                    ///< why no decision was made ("" when it was)
  std::vector<std::string> notes;
};

/// The decisions of `rows` (rows[0] the baseline) from `first` (and `second`, the confirmation
/// set, or nullptr): `arm_of_row[i]` is row i's arm in the rounds, -1 when it was not timed (not
/// correct, not loaded). A row not timed gets revert when it is not correct, else inconclusive. An
/// incorrect or untimed baseline gives no decision (not_run says why). The timed candidates are
/// decided together (decide_holm at alpha = 1 - rule.confidence); with `second`, first on `first`
/// alone at kFirstLookShare of alpha, then the undecided on both sets pooled at the rest. When the
/// A/A interval excludes no change (aa_failed) every candidate not reverted on its state is
/// inconclusive with the reason.
DecisionReport decide_versions(const std::vector<VersionRow>& rows, const std::vector<int>& arm_of_row,
                               const RoundsResult& first, const RoundsResult* second, const DecisionRule& rule);

/// A version's state for the rule: correct (a status other than Pass is not; Unchecked counts as
/// correct, nothing is known against it), its first failure, its timing integrity.
CandidateState candidate_state(const VersionRow& row);

}  // namespace kprof
