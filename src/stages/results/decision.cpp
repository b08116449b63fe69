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

/// The vs-first verdict of a paired decision: its ratio and interval, the threshold as both margins.
NoiseVerdict verdict_of_decision(const CandidateDecision& c) {
  NoiseVerdict v;
  v.call = c.decision == Decision::Keep     ? NoiseCall::Faster
           : c.decision == Decision::Revert ? NoiseCall::Slower
           : c.within_threshold             ? NoiseCall::Same
                                            : NoiseCall::Inconclusive;
  v.interval = {c.ratio.value_or(0), c.lo.value_or(0), c.hi.value_or(0), c.confidence, 0};
  v.margins = {c.min_gain, c.min_gain};
  v.more_samples = c.more_rounds;
  return v;
}

Change change_of_call(NoiseCall c) {
  return c == NoiseCall::Faster   ? Change::Faster
         : c == NoiseCall::Slower ? Change::Slower
         : c == NoiseCall::Same   ? Change::Same
                                  : Change::Inconclusive;
}

}  // namespace

void apply_round_verdicts(const std::vector<VersionRow>& rows, const std::vector<int>& arm_of_row,
                          const DecisionReport& d, const RoundsResult* first, std::vector<RowComparison>& cmp) {
  auto arm = [&](size_t i) { return first && d.not_run.empty() && i < arm_of_row.size() ? arm_of_row[i] : -1; };
  for (size_t i = 0; i < rows.size() && i < cmp.size(); ++i) {
    RowComparison& c = cmp[i];
    if (c.change == Change::Baseline || c.change == Change::NotComparable) continue;
    c.verdict.reset();
    c.change = Change::Inconclusive;
    if (arm(i) < 0 || i == 0) continue;
    for (const auto& v : d.versions)
      if (v.name == rows[i].name && !v.decision.on_state && v.decision.ratio) {
        c.verdict = verdict_of_decision(v.decision);
        c.change = change_of_call(c.verdict->call);
      }
  }
  int fastest = -1;
  for (size_t i = 0; i < cmp.size(); ++i)
    if (cmp[i].fastest) fastest = static_cast<int>(i);
  if (fastest < 0) return;
  for (size_t i = 0; i < rows.size() && i < cmp.size(); ++i) {
    RowComparison& c = cmp[i];
    if (static_cast<int>(i) == fastest || !rows[i].correct() || !rows[i].time_ms) continue;
    c.verdict_vs_fastest.reset();
    c.tied_with_fastest = true;  // not in the rounds: the measurement cannot rank it below the fastest
    if (arm(i) < 0 || arm(static_cast<size_t>(fastest)) < 0) continue;
    CandidateDecision vs =
        decide_logs(paired_log_ratios(first->kept_ms(arm(static_cast<size_t>(fastest))), first->kept_ms(arm(i))),
                    d.settings.min_gain, d.settings.confidence, candidate_state(rows[i]));
    vs.min_gain = d.settings.min_gain;
    if (!vs.ratio) continue;
    c.verdict_vs_fastest = verdict_of_decision(vs);
    c.tied_with_fastest = vs.decision != Decision::Revert;
  }
}

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
