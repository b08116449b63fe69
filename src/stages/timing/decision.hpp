// The keep / revert / inconclusive decision of a candidate kernel version against the baseline
// (pure, no CUDA): within one `kprof run --decide`, per-round paired ratios of interleaved rounds
// (rounds.hpp) with a distribution-free interval of their median; across runs (`kprof compare`),
// the bootstrap interval of the ratio of medians (noise.hpp), used only where runs are the unit.
// Stated in docs/METHOD.md and measured by the simulation suite (tests/sim, docs/decisions-sim.md):
// a false keep or revert at most 1% per candidate and, with Holm's step-down across a run's
// candidates, per family.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Confidence of the decision's two-sided interval: 99%, so each one-sided miss is at most 0.5%
/// and a false keep or revert at most 1% per candidate (docs/METHOD.md). Source: issue 43's target
/// of at most 1% false decisions per candidate.
inline constexpr double kDecisionConfidence = 0.99;

/// The default --min-gain, fraction (1%). Source: kprof's rule: NVML reports the SM clock in
/// 15 MHz steps, 0.8% of the H200's 1980 MHz, so a smaller gain is within one clock step.
inline constexpr double kDefaultMinGain = 0.01;

/// A distribution-free confidence interval of a median (same unit as the sample).
struct MedianInterval {
  double median = 0;
  double lo = 0;
  double hi = 0;
  double coverage = 0;  ///< the interval's exact coverage for continuous samples (>= the requested confidence)
  size_t n = 0;         ///< sample size
};

/// The fewest samples for which median_interval has an interval at `confidence`
/// (2 * 0.5^n <= 1 - confidence: 8 at 99%, 6 at 95%).
size_t min_samples_for(double confidence);

/// Distribution-free interval of the median of `xs` (order statistics, the sign test inverted):
/// [x_(k), x_(n+1-k)] for the largest k with 2 P(Bin(n, 1/2) <= k - 1) <= 1 - confidence, which
/// holds the true median with probability >= confidence for any continuous distribution of
/// independent samples. nullopt below min_samples_for(confidence) samples. Never throws.
std::optional<MedianInterval> median_interval(std::vector<double> xs, double confidence = kDecisionConfidence);

/// Per-round paired log ratios ln(base[r] / cand[r]) (> 0: the candidate was faster in round r),
/// over the first min(|base|, |cand|) rounds; a round with a value <= 0 or NaN is skipped.
std::vector<double> paired_log_ratios(const std::vector<double>& base_ms, const std::vector<double>& cand_ms);

/// One candidate's decision.
enum class Decision { Keep, Revert, Inconclusive };

/// "keep", "revert", "inconclusive" (the JSON form).
std::string decision_id(Decision d);

/// The rule's settings.
struct DecisionRule {
  double min_gain = kDefaultMinGain;        ///< --min-gain, fraction: no gain below it counts
  double confidence = kDecisionConfidence;  ///< of every interval the rule reads
};

/// --confirm's alpha spending: the first look (the first set of rounds alone) spends this share of
/// the error rate, the pooled look (both sets) the rest, so the two looks together keep the bound.
/// Source: kprof's rule (an O'Brien-Fleming-like split: most of alpha for the larger look).
inline constexpr double kFirstLookShare = 0.2;

/// The A/A check: the baseline timed against itself as an extra arm in the same rounds. It does
/// not enter the threshold (the error bound holds whatever the threshold is); when its interval
/// excludes no change, an assumption of the rule failed and the run decides nothing.
struct NoiseFloor {
  std::optional<MedianInterval> aa;  ///< interval of ln(A / A') per round (unset: too few rounds or no A/A arm)
  /// The largest difference of the baseline against itself the interval cannot rule out:
  /// exp(max(|lo|, |hi|)) - 1, fraction (0 without `aa`). Reported, not a threshold.
  double floor = 0;
  /// The A/A interval excludes 0: the two arms of one kernel differed (position in the round,
  /// carry-over from the call before, a cache or clock effect); by chance in 1 - confidence of runs.
  bool biased = false;
};

/// The floor of `base_ms` against `aa_ms` (the same kernel's two arms, per kept round).
NoiseFloor aa_floor(const std::vector<double>& base_ms, const std::vector<double>& aa_ms,
                    double confidence = kDecisionConfidence);

/// What the decision needs of a candidate besides its times.
struct CandidateState {
  bool correct = true;    ///< its check passed
  std::string why_not;    ///< the first failure when not correct
  std::string integrity;  ///< the timing's integrity verdict: "pass", "warn", "fail", "not_run", "" (not measured)
};

/// One candidate's decision with its evidence. Ratios are base / candidate (> 1: faster).
struct CandidateDecision {
  Decision decision = Decision::Inconclusive;
  std::string reason;            ///< why, in words
  bool paired = true;            ///< per-round paired ratios (false: two samples' medians, across runs)
  std::optional<double> ratio;   ///< point estimate (unset: no times)
  std::optional<double> lo, hi;  ///< interval ends (unset: too few samples for an interval)
  double confidence = kDecisionConfidence;
  double floor = 0;                   ///< the A/A spread (reported; or the cross-run floor), fraction
  double min_gain = 0;                ///< --min-gain, fraction
  double threshold = 0;               ///< min_gain (paired) or max(floor, min_gain) (across runs), fraction
  size_t rounds = 0;                  ///< rounds used (paired) or the smaller sample (unpaired)
  std::optional<size_t> more_rounds;  ///< inconclusive: about how many more rounds would decide
  /// Inconclusive because the interval lies within +-threshold: more rounds will not make it a keep.
  bool within_threshold = false;
  bool confirmed = false;  ///< decided on both sets pooled (--confirm's second look)
  bool on_state = false;   ///< a revert for correctness or integrity, whatever the times
  size_t zero_rounds = 0;  ///< rounds skipped because an arm's time was zero or not a number
};

/// The rule on an interval of ln(base / cand) (log units, from `n` rounds or samples): revert when
/// not correct or the integrity failed; keep when lo > ln(1 + threshold); revert when
/// hi < -ln(1 + threshold); else inconclusive (within_threshold, or more_rounds from the spread,
/// noise.hpp more_samples_needed). `lo`/`hi` unset: inconclusive, more_rounds up to the minimum.
CandidateDecision decide_on_interval(double median_log, std::optional<double> lo_log, std::optional<double> hi_log,
                                     size_t n, double threshold, const CandidateState& s);

/// The rule on per-round log ratios `logs` at `confidence`: median_interval, then
/// decide_on_interval with `threshold`; below min_samples_for(confidence) rounds inconclusive with
/// the rounds missing as more_rounds.
CandidateDecision decide_logs(const std::vector<double>& logs, double threshold, double confidence,
                              const CandidateState& s);

/// Within one run: the per-round paired ratios of `cand_ms` against `base_ms` (kept rounds, same
/// order), decide_logs at rule.confidence with threshold rule.min_gain. `floor` is reported only
/// (CandidateDecision::floor). Rounds where either time is <= 0 are counted in zero_rounds.
CandidateDecision decide_paired(const std::vector<double>& base_ms, const std::vector<double>& cand_ms,
                                const NoiseFloor& floor, const DecisionRule& rule, const CandidateState& s);

/// Holm's step-down across a run's candidates: `logs[i]` the per-round log ratios of candidate i,
/// `states[i]` its state. A candidate reverted for its state is decided so and not tested; of the m
/// others, every one decided (keep or revert) at confidence 1 - alpha / m is final, then the rest
/// again at 1 - alpha / m' with m' those left, until a step decides none (those keep that step's
/// inconclusive). The family-wise rate of false keeps and reverts is then at most alpha (for any
/// dependence between the candidates). `confidence` of each result is the level it was judged at.
std::vector<CandidateDecision> decide_holm(const std::vector<std::vector<double>>& logs,
                                           const std::vector<CandidateState>& states, double threshold, double alpha);

/// Across runs (`kprof compare`): no pairs, so the bootstrap interval of the ratio of the two
/// samples' medians (noise.hpp bootstrap_median_ratio, 2000 resamples) at rule.confidence;
/// threshold max(floor, rule.min_gain) with `floor` the cross-run floor (versions.hpp
/// kCrossRunNoiseFloor) or larger.
CandidateDecision decide_unpaired(const std::vector<double>& base_ms, const std::vector<double>& cand_ms, double floor,
                                  const DecisionRule& rule, const CandidateState& s);

/// One line: "keep: 1.031x faster (99% interval 1.024-1.038 over 60 rounds; threshold 1.0%)".
std::string decision_text(const CandidateDecision& d);

}  // namespace kprof
