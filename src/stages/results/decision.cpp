#include "stages/results/decision.hpp"

#include <fmt/format.h>

namespace kprof {
namespace {

/// The A/A check over the kept rounds of `first` and `second` (none without an A/A arm).
NoiseFloor floor_of(const RoundsResult& first, const RoundsResult* second, double confidence) {
  if (!first.aa_arm) return NoiseFloor{};
  std::vector<double> base = first.kept_ms(0), aa = first.kept_ms(first.versions);
  if (second && second->aa_arm) {
    const auto b2 = second->kept_ms(0), a2 = second->kept_ms(second->versions);
    base.insert(base.end(), b2.begin(), b2.end());
    aa.insert(aa.end(), a2.begin(), a2.end());
  }
  return aa_floor(base, aa, confidence);
}

/// Per-round log ratios of arm `arm` against the baseline over the kept rounds of `r` (appended to `out`).
void add_logs(const RoundsResult& r, int arm, std::vector<double>& out) {
  const auto l = paired_log_ratios(r.kept_ms(0), r.kept_ms(arm));
  out.insert(out.end(), l.begin(), l.end());
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
  d.seed = first.seed;
  d.zero_time_calls = first.zero_calls + (second ? second->zero_calls : 0);
  d.floor = floor_of(first, second, rule.confidence);
  // The candidates timed in the rounds, decided together (Holm); the others on their state.
  std::vector<size_t> timed;
  std::vector<CandidateState> states;
  for (size_t i = 1; i < rows.size(); ++i)
    if (i < arm_of_row.size() && arm_of_row[i] >= 0) {
      timed.push_back(i);
      states.push_back(candidate_state(rows[i]));
    }
  d.candidates = timed.size();
  const double alpha = 1 - rule.confidence;
  std::vector<std::vector<double>> logs(timed.size());
  for (size_t t = 0; t < timed.size(); ++t) add_logs(first, arm_of_row[timed[t]], logs[t]);
  std::vector<CandidateDecision> decided =
      decide_holm(logs, states, rule.min_gain, second ? alpha * kFirstLookShare : alpha);
  if (second) {  // the second look: both sets pooled, for those the first look left undecided
    std::vector<std::vector<double>> pooled;
    std::vector<CandidateState> open_states;
    std::vector<size_t> open;
    for (size_t t = 0; t < timed.size(); ++t)
      if (decided[t].decision == Decision::Inconclusive) {
        open.push_back(t);
        pooled.push_back(logs[t]);
        add_logs(*second, arm_of_row[timed[t]], pooled.back());
        open_states.push_back(states[t]);
      }
    const auto again = decide_holm(pooled, open_states, rule.min_gain, alpha * (1 - kFirstLookShare));
    for (size_t o = 0; o < open.size(); ++o) {
      decided[open[o]] = again[o];
      decided[open[o]].confirmed = true;
    }
  }
  if (d.floor.biased) {
    d.aa_failed = true;
    d.notes.push_back(fmt::format(
        "the A/A check failed: the baseline differed from its own second instance (interval {:+.2f}% to {:+.2f}%), so "
        "the rounds broke an assumption of the rule (an arm's position in the round, carry-over from the call "
        "before, a cache or clock effect): no keep or revert from these rounds; find the cause, then run again",
        100 * std::expm1(d.floor.aa->lo), 100 * std::expm1(d.floor.aa->hi)));
  }
  size_t t = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const CandidateState s = candidate_state(rows[i]);
    CandidateDecision c;
    if (t < timed.size() && timed[t] == i) {
      c = decided[t++];
      c.floor = d.floor.floor;
      c.min_gain = rule.min_gain;
      if (d.aa_failed && !c.on_state) {
        c.decision = Decision::Inconclusive;
        c.more_rounds.reset();
        c.reason = "no decision: the A/A check failed (see the note)";
      }
    } else {
      c = decide_paired({}, {}, d.floor, rule, s);
      if (c.decision != Decision::Revert) c.reason = "not timed in the rounds";
      c.more_rounds.reset();
    }
    d.versions.push_back({rows[i].name, c});
  }
  return d;
}

}  // namespace kprof
