#include "stages/results/decision.hpp"

#include <fmt/format.h>

namespace kprof {
namespace {

/// The decision of arm `arm` in one set of rounds.
CandidateDecision decide_arm(const RoundsResult& r, int arm, const NoiseFloor& floor, const DecisionRule& rule,
                             const CandidateState& s) {
  return decide_paired(r.kept_ms(0), r.kept_ms(arm), floor, rule, s);
}

/// The A/A floor of one set of rounds (none without its A/A arm).
NoiseFloor floor_of(const RoundsResult& r, double confidence) {
  return r.aa_arm ? aa_floor(r.kept_ms(0), r.kept_ms(r.versions), confidence) : NoiseFloor{};
}

}  // namespace

CandidateState candidate_state(const VersionRow& row) {
  CandidateState s;
  s.correct = row.status == VersionStatus::Pass || row.status == VersionStatus::Unchecked;
  s.why_not =
      s.correct ? "" : version_status_id(row.status) + (row.status_reason.empty() ? "" : ": " + row.status_reason);
  s.integrity = row.integrity;
  return s;
}

DecisionReport decide_versions(const std::vector<VersionRow>& rows, const std::vector<int>& arm_of_row,
                               const RoundsResult& first, const RoundsResult* second, const DecisionRule& rule) {
  DecisionReport d;
  d.settings = rule;
  if (rows.empty()) return d;
  d.baseline = rows[0].name;
  d.rounds = first.rounds.size() + (second ? second->rounds.size() : 0);
  d.rounds_kept = first.kept() + (second ? second->kept() : 0);
  d.rounds_discarded = d.rounds - d.rounds_kept;
  d.band = first.band;
  d.stopped_by = first.stopped_by;
  d.seconds = first.seconds + (second ? second->seconds : 0);
  d.confirmation = second != nullptr;
  if (arm_of_row.empty() || arm_of_row[0] != 0 || !rows[0].correct()) {
    d.not_run = "the baseline " + rows[0].name + " is not correct or was not timed: there is nothing to decide against";
    return d;
  }
  d.floor = floor_of(first, rule.confidence);
  if (d.floor.biased)
    d.notes.push_back(
        fmt::format("the baseline differed from itself (A/A interval {:+.2f}% to {:+.2f}%): the floor "
                    "{:.2f}% raises the threshold",
                    100 * std::expm1(d.floor.aa->lo), 100 * std::expm1(d.floor.aa->hi), 100 * d.floor.floor));
  const NoiseFloor second_floor = second ? floor_of(*second, rule.confidence) : NoiseFloor{};
  for (size_t i = 1; i < rows.size(); ++i) {
    const CandidateState s = candidate_state(rows[i]);
    const int arm = i < arm_of_row.size() ? arm_of_row[i] : -1;
    CandidateDecision c;
    if (arm < 0) {
      c = decide_paired({}, {}, d.floor, rule, s);
      if (c.decision != Decision::Revert) c.reason = "not timed in the rounds";
      c.more_rounds.reset();
    } else {
      c = decide_arm(first, arm, d.floor, rule, s);
      if (second) c = confirm(c, decide_arm(*second, arm, second_floor, rule, s));
    }
    d.versions.push_back({rows[i].name, c});
  }
  return d;
}

}  // namespace kprof
