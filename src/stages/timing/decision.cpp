#include "stages/timing/decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/enum_names.hpp"
#include "stages/timing/noise.hpp"

namespace kprof {
namespace {

/// The names of Decision (core/enum_names.hpp).
constexpr auto kDecisionNames = enum_names<Decision>(
    {{Decision::Keep, "keep"}, {Decision::Revert, "revert"}, {Decision::Inconclusive, "inconclusive"}}, "inconclusive");

/// ln C(n, i) - n ln 2: the log probability of i under Bin(n, 1/2).
double log_binomial_half(size_t n, size_t i) {
  const double nn = static_cast<double>(n), ii = static_cast<double>(i);
  return std::lgamma(nn + 1) - std::lgamma(ii + 1) - std::lgamma(nn - ii + 1) - nn * std::log(2.0);
}

/// Median of sorted `v` (not empty).
double median_sorted(const std::vector<double>& v) {
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// "+3.1%" of a log ratio.
std::string pct(double log_ratio) { return fmt::format("{:+.1f}%", 100 * std::expm1(log_ratio)); }

/// A revert for correctness or integrity, or nullopt when the times decide.
std::optional<CandidateDecision> state_revert(const CandidateState& s) {
  CandidateDecision d;
  d.decision = Decision::Revert;
  d.on_state = true;
  if (!s.correct) {
    d.reason = "not correct" + (s.why_not.empty() ? std::string() : ": " + s.why_not);
    return d;
  }
  if (s.integrity == "fail") {
    d.reason = "timing integrity failed: its time is not the time of computing its answer";
    return d;
  }
  return std::nullopt;
}

}  // namespace

std::string decision_id(Decision d) { return kDecisionNames.name(d); }

size_t min_samples_for(double confidence) {
  return static_cast<size_t>(std::ceil(std::log2(2.0 / std::max(1e-12, 1 - confidence)) - 1e-9));
}

std::optional<MedianInterval> median_interval(std::vector<double> xs, double confidence) {
  xs.erase(std::remove_if(xs.begin(), xs.end(), [](double x) { return std::isnan(x); }), xs.end());
  const size_t n = xs.size();
  if (n == 0) return std::nullopt;
  const double alpha = 1 - confidence;
  double cdf = 0;
  size_t k = 0;  // the interval is [x_(k), x_(n+1-k)], 1-based
  for (size_t i = 0; 2 * i + 1 < n; ++i) {
    const double next = cdf + std::exp(log_binomial_half(n, i));
    if (2 * next > alpha) break;
    cdf = next;
    k = i + 1;
  }
  if (k == 0) return std::nullopt;
  std::sort(xs.begin(), xs.end());
  MedianInterval m;
  m.n = n;
  m.median = median_sorted(xs);
  m.lo = xs[k - 1];
  m.hi = xs[n - k];
  m.coverage = 1 - 2 * cdf;
  return m;
}

std::vector<double> paired_log_ratios(const std::vector<double>& base_ms, const std::vector<double>& cand_ms) {
  std::vector<double> out;
  const size_t n = std::min(base_ms.size(), cand_ms.size());
  out.reserve(n);
  for (size_t r = 0; r < n; ++r)
    if (base_ms[r] > 0 && cand_ms[r] > 0) out.push_back(std::log(base_ms[r] / cand_ms[r]));
  return out;
}

NoiseFloor aa_floor(const std::vector<double>& base_ms, const std::vector<double>& aa_ms, double confidence) {
  NoiseFloor f;
  f.aa = median_interval(paired_log_ratios(base_ms, aa_ms), confidence);
  if (!f.aa) return f;
  f.floor = std::expm1(std::max(std::fabs(f.aa->lo), std::fabs(f.aa->hi)));
  f.biased = f.aa->lo > 0 || f.aa->hi < 0;
  return f;
}

CandidateDecision decide_on_interval(double median_log, std::optional<double> lo_log, std::optional<double> hi_log,
                                     size_t n, double threshold, const CandidateState& s) {
  CandidateDecision d;
  if (auto r = state_revert(s)) d = *r;
  d.rounds = n;
  d.threshold = threshold;
  d.ratio = std::exp(median_log);
  if (lo_log) d.lo = std::exp(*lo_log);
  if (hi_log) d.hi = std::exp(*hi_log);
  if (d.decision == Decision::Revert) return d;  // correctness or integrity
  const double t = std::log1p(threshold);
  if (!lo_log || !hi_log) {
    d.reason = fmt::format("too few rounds for an interval ({})", n);
    return d;
  }
  if (*lo_log > t) {
    d.decision = Decision::Keep;
    d.reason = fmt::format("faster by {} (interval {} to {}), clear of the {:.1f}% threshold", pct(median_log),
                           pct(*lo_log), pct(*hi_log), 100 * threshold);
  } else if (*hi_log < -t) {
    d.decision = Decision::Revert;
    d.reason = fmt::format("slower by {} (interval {} to {}), beyond the {:.1f}% threshold", pct(-median_log),
                           pct(-*hi_log), pct(-*lo_log), 100 * threshold);
  } else if (*lo_log >= -t && *hi_log <= t) {
    d.within_threshold = true;
    d.reason = fmt::format(
        "within +-{:.1f}% of the baseline (interval {} to {}): no gain beyond the threshold; more rounds would "
        "narrow the interval, not move it past the threshold",
        100 * threshold, pct(*lo_log), pct(*hi_log));
  } else {
    const double half = std::max(*hi_log - median_log, median_log - *lo_log);
    const double gap = std::fabs(median_log);
    d.more_rounds = more_samples_needed(n, half, gap > t ? gap - t : t - gap);
    d.reason = fmt::format("interval {} to {} straddles the {:.1f}% threshold: {}", pct(*lo_log), pct(*hi_log),
                           100 * threshold,
                           d.more_rounds ? fmt::format("about {} more rounds", *d.more_rounds)
                                         : std::string("at the threshold: many more rounds"));
  }
  return d;
}

CandidateDecision decide_logs(const std::vector<double>& logs, double threshold, double confidence,
                              const CandidateState& s) {
  const auto ci = median_interval(logs, confidence);
  CandidateDecision d;
  if (ci) {
    d = decide_on_interval(ci->median, ci->lo, ci->hi, logs.size(), threshold, s);
  } else {
    std::vector<double> sorted = logs;
    std::sort(sorted.begin(), sorted.end());
    d = decide_on_interval(sorted.empty() ? 0 : median_sorted(sorted), std::nullopt, std::nullopt, logs.size(),
                           threshold, s);
    if (d.decision == Decision::Inconclusive) d.more_rounds = min_samples_for(confidence) - logs.size();
    if (sorted.empty()) d.ratio.reset();
  }
  d.paired = true;
  d.confidence = confidence;
  return d;
}

CandidateDecision decide_paired(const std::vector<double>& base_ms, const std::vector<double>& cand_ms,
                                const NoiseFloor& floor, const DecisionRule& rule, const CandidateState& s) {
  const std::vector<double> logs = paired_log_ratios(base_ms, cand_ms);
  CandidateDecision d = decide_logs(logs, rule.min_gain, rule.confidence, s);
  d.zero_rounds = std::min(base_ms.size(), cand_ms.size()) - logs.size();
  d.floor = floor.floor;
  d.min_gain = rule.min_gain;
  return d;
}

std::vector<CandidateDecision> decide_holm(const std::vector<std::vector<double>>& logs,
                                           const std::vector<CandidateState>& states, double threshold, double alpha) {
  const size_t k = logs.size();
  std::vector<CandidateDecision> out(k);
  std::vector<bool> open(k, false);
  for (size_t i = 0; i < k; ++i) {
    const CandidateState s = i < states.size() ? states[i] : CandidateState{};
    if (state_revert(s)) {
      out[i] = decide_logs(logs[i], threshold, 1 - alpha, s);  // a revert on its state, with the evidence
    } else {
      open[i] = true;
    }
  }
  for (;;) {
    const size_t left = static_cast<size_t>(std::count(open.begin(), open.end(), true));
    if (left == 0) break;
    const double confidence = 1 - alpha / static_cast<double>(left);
    bool any = false;
    for (size_t i = 0; i < k; ++i) {
      if (!open[i]) continue;
      out[i] = decide_logs(logs[i], threshold, confidence, i < states.size() ? states[i] : CandidateState{});
      if (out[i].decision != Decision::Inconclusive) {
        open[i] = false;
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

CandidateDecision decide_unpaired(const std::vector<double>& base_ms, const std::vector<double>& cand_ms, double floor,
                                  const DecisionRule& rule, const CandidateState& s) {
  const double threshold = std::max(floor, rule.min_gain);
  const size_t n = std::min(base_ms.size(), cand_ms.size());
  const auto ci = bootstrap_median_ratio(cand_ms, base_ms, 2000, rule.confidence);
  CandidateDecision d =
      ci ? decide_on_interval(std::log(ci->ratio), std::log(ci->lo), std::log(ci->hi), n, threshold, s)
         : decide_on_interval(0, std::nullopt, std::nullopt, n, threshold, s);
  if (!ci) d.ratio.reset();
  d.paired = false;
  d.confidence = rule.confidence;
  d.floor = floor;
  d.min_gain = rule.min_gain;
  return d;
}

std::string decision_text(const CandidateDecision& d) {
  std::string evidence;
  if (d.ratio && d.lo && d.hi)
    evidence =
        fmt::format(" ({:.3f}x, {:.0f}% interval {:.3f}-{:.3f} over {} {}; threshold {:.1f}%)", *d.ratio,
                    100 * d.confidence, *d.lo, *d.hi, d.rounds, d.paired ? "rounds" : "samples", 100 * d.threshold);
  return decision_id(d.decision) + ": " + d.reason + evidence;
}

}  // namespace kprof
