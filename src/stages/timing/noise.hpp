// The statistics behind kprof's timing decisions (pure, no CUDA): when to stop timing (the
// relative standard error of the median reaches a target, nvbench's "max noise" criterion), and
// whether two versions differ (a bootstrap confidence interval of the ratio of their medians, with
// "inconclusive: about N more samples" when the interval cannot decide). Every threshold is a named
// constant documented here and printed next to the measured value in the reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Relative standard error of the median of `xs` (any unit, any order), as a fraction of the
/// median: 1.2533 * sigma / sqrt(n) / median, the large-sample standard error of a median of a
/// normal sample, with sigma estimated robustly as 1.4826 * MAD (median absolute deviation), so a
/// few throttled or preempted calls do not inflate it. NaN for n < 2 or a median <= 0; 0 when
/// at least half the samples are equal (MAD 0). Never throws.
double median_rel_stderr(const std::vector<double>& xs);

/// nvbench's default noise target ("--max-noise 0.5"): timing stops once the relative standard
/// error of the median is at most 0.5%.
inline constexpr double kDefaultNoiseTarget = 0.005;

/// A confidence interval of ratio = median(base) / median(x) (> 1: x is faster than base).
struct RatioInterval {
  double ratio = 0;  ///< the point estimate from the full samples
  double lo = 0;     ///< lower end of the interval
  double hi = 0;     ///< upper end
  double confidence = 0.95;
  size_t resamples = 0;
};

/// Percentile bootstrap of median(base) / median(x): `resamples` draws with replacement of each
/// sample (independently), the ratio of their medians each time, the central `confidence`
/// interval of those ratios. Deterministic for a given `seed`. nullopt when either sample has
/// fewer than 2 values or a median <= 0. Cost: resamples * (|x| + |base|) element copies; a side
/// of 4096 values or more is sorted once and each resample's median drawn as an order statistic
/// (the same distribution, O(1) per resample: a million-sample comparison stays in milliseconds).
std::optional<RatioInterval> bootstrap_median_ratio(const std::vector<double>& x, const std::vector<double>& base,
                                                    size_t resamples = 2000, double confidence = 0.95,
                                                    uint64_t seed = 0x6b70726f66ULL);

/// The outcome of comparing two samples.
enum class NoiseCall {
  Faster,  ///< the interval lies above 1 and the ratio is at least 1 + min_effect
  Slower,  ///< the interval lies below 1 and the ratio is at most 1 / (1 + min_effect)
  Same,  ///< the interval lies within [1/(1+equivalence), 1+equivalence], or the difference is significant but below min_effect
  Inconclusive,  ///< neither: more samples would decide
};

/// "faster", "slower", "same", "inconclusive".
std::string noise_call_id(NoiseCall c);

/// The margins of a comparison, fractions of the ratio.
struct NoiseMargins {
  /// A difference smaller than this is not called faster or slower, however significant: within
  /// one run kprof times to kDefaultNoiseTarget (0.5%), so smaller gaps are not resolved.
  double min_effect = 0.005;
  /// The interval must lie within this of 1 to call the two "the same" (1% within one run).
  double equivalence = 0.01;
};

/// The margins within one `kprof run`: 0.5% effect, 1% equivalence. Source: kprof's rule, from the
/// noise target (kDefaultNoiseTarget).
inline constexpr NoiseMargins kWithinRunMargins{0.005, 0.01};

/// The margins across runs (`kprof compare`): two runs of one kernel on one H200 on different days
/// differ by about 1% (docs/gpu-runs.md), so neither a gap nor an equivalence below 2% is claimed.
/// Source: kprof's rule (kCrossRunNoiseFloor).
inline constexpr NoiseMargins kCrossRunMargins{0.02, 0.02};

/// One comparison's verdict with its evidence.
struct NoiseVerdict {
  NoiseCall call = NoiseCall::Inconclusive;
  RatioInterval interval;
  NoiseMargins margins;
  /// For Inconclusive: about how many more samples per version the interval needs to decide
  /// (its width shrinks as 1/sqrt(n)); unset when the estimate exceeds kMaxMoreSamples.
  std::optional<size_t> more_samples;
};

/// Beyond this many more samples kprof says "many more samples" (the gap is at the margin).
inline constexpr size_t kMaxMoreSamples = 1000000;

/// More samples needed (per side) for an interval of half-width `half` (log units) measured on
/// `n` samples to shrink to `want` (log units): the half-width shrinks as 1/sqrt(n), plus a 20%
/// margin. nullopt when half or want is not positive or the answer exceeds kMaxMoreSamples; at
/// least 1. Shared by noise_verdict and the keep/revert decision (decision.hpp).
std::optional<size_t> more_samples_needed(size_t n, double half, double want);

/// Compares sample `x` with `base` (both per-call times, same unit) under `margins`. nullopt when
/// bootstrap_median_ratio has no interval (fewer than 2 samples on a side).
std::optional<NoiseVerdict> noise_verdict(const std::vector<double>& x, const std::vector<double>& base,
                                          NoiseMargins margins = kWithinRunMargins);

/// Pure decision from an interval (used by noise_verdict; tests drive it directly). `n` is the
/// smaller of the two sample counts.
NoiseVerdict decide(const RatioInterval& ci, NoiseMargins margins, size_t n);

/// "1.015x faster (95% interval 1.010-1.020, 2000 bootstrap resamples)" or "inconclusive:
/// 1.004x (95% interval 0.991-1.017): about 300 more samples per version".
std::string noise_verdict_text(const NoiseVerdict& v);

}  // namespace kprof
