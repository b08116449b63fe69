#include "stages/timing/noise.hpp"
#include "core/enum_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace kprof {
namespace {

/// Median of `v` (reordered in place); v must not be empty.
double median_inplace(std::vector<double>& v) {
  const size_t n = v.size();
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  double hi = *mid;
  if (n % 2) return hi;
  double lo = *std::max_element(v.begin(), mid);
  return 0.5 * (lo + hi);
}

/// Fills `out` with |xs| draws of `xs` with replacement and returns their median.
double resampled_median(const std::vector<double>& xs, std::mt19937_64& rng, std::vector<double>& out) {
  std::uniform_int_distribution<size_t> pick(0, xs.size() - 1);
  out.resize(xs.size());
  for (auto& v : out) v = xs[pick(rng)];
  return median_inplace(out);
}

/// From this many values on, a side's resampled medians are drawn as order statistics
/// (order_statistic_median) instead of by copying: the same distribution, O(1) per resample instead
/// of O(n), so `kprof compare` of 10,000-sample series (saved runs of a million samples, thinned by
/// stages/results/saved_run_check.hpp) costs milliseconds instead of seconds. Below it the draws
/// stay exactly as before (the same seeded intervals).
constexpr size_t kOrderStatisticFrom = 4096;

/// A draw of Beta(a, b) as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
double beta_draw(double a, double b, std::mt19937_64& rng) {
  std::gamma_distribution<double> ga(a, 1.0), gb(b, 1.0);
  const double x = ga(rng), y = gb(rng);
  return x / (x + y);
}

/// The median of n = |sorted| draws with replacement from `sorted` (ascending), drawn directly. A
/// draw picks index floor(n * u) with u uniform in [0, 1), a map that keeps order, so the k-th
/// smallest draw is sorted[floor(n * U(k))] where U(k), the k-th smallest of n uniforms, is
/// Beta(k, n - k + 1); the (k+1)-th is U(k) + (1 - U(k)) * Beta(1, n - k). Odd n: the median is
/// the (n/2 + 1)-th smallest draw; even n: the mean of the (n/2)-th and (n/2 + 1)-th, as
/// median_inplace takes them. So it has resampled_median's distribution exactly, at O(1).
double order_statistic_median(const std::vector<double>& sorted, std::mt19937_64& rng) {
  const size_t n = sorted.size();
  const double nd = static_cast<double>(n);
  auto at = [&](double u) { return sorted[std::min(n - 1, static_cast<size_t>(u * nd))]; };
  const size_t k = n % 2 ? n / 2 + 1 : n / 2;
  const double uk = beta_draw(static_cast<double>(k), static_cast<double>(n - k + 1), rng);
  if (n % 2) return at(uk);
  const double uk1 = uk + (1 - uk) * beta_draw(1.0, static_cast<double>(n - k), rng);
  return 0.5 * (at(uk) + at(uk1));
}

/// The median of a resample of `xs` (`sorted`: xs ascending, filled when xs is large).
double draw_median(const std::vector<double>& xs, const std::vector<double>& sorted, std::mt19937_64& rng,
                   std::vector<double>& scratch) {
  return sorted.empty() ? resampled_median(xs, rng, scratch) : order_statistic_median(sorted, rng);
}

/// `xs` ascending when it has kOrderStatisticFrom values or more, else empty.
std::vector<double> sorted_if_large(const std::vector<double>& xs) {
  if (xs.size() < kOrderStatisticFrom) return {};
  std::vector<double> s = xs;
  std::sort(s.begin(), s.end());
  return s;
}

/// The q-quantile (0..1) of sorted `v` by linear interpolation.
double quantile_sorted(const std::vector<double>& v, double q) {
  double pos = q * static_cast<double>(v.size() - 1);
  size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  double f = pos - static_cast<double>(i);
  return v[i] * (1 - f) + v[i + 1] * f;
}

}  // namespace

double median_rel_stderr(const std::vector<double>& xs) {
  if (xs.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = xs;
  const double med = median_inplace(v);
  if (!(med > 0)) return std::numeric_limits<double>::quiet_NaN();
  for (auto& x : v) x = std::fabs(x - med);
  const double mad = median_inplace(v);
  const double sigma = 1.4826 * mad;
  return 1.2533 * sigma / std::sqrt(static_cast<double>(xs.size())) / med;
}

std::optional<RatioInterval> bootstrap_median_ratio(const std::vector<double>& x, const std::vector<double>& base,
                                                    size_t resamples, double confidence, uint64_t seed) {
  if (x.size() < 2 || base.size() < 2 || resamples < 10) return std::nullopt;
  std::vector<double> a = x, b = base;
  const double mx = median_inplace(a), mb = median_inplace(b);
  if (!(mx > 0) || !(mb > 0)) return std::nullopt;
  std::mt19937_64 rng(seed);
  std::vector<double> ratios, scratch;
  const std::vector<double> sorted_base = sorted_if_large(base), sorted_x = sorted_if_large(x);
  ratios.reserve(resamples);
  for (size_t r = 0; r < resamples; ++r) {
    double rb = draw_median(base, sorted_base, rng, scratch);
    double rx = draw_median(x, sorted_x, rng, scratch);
    ratios.push_back(rx > 0 ? rb / rx : std::numeric_limits<double>::infinity());
  }
  std::sort(ratios.begin(), ratios.end());
  RatioInterval ci;
  ci.ratio = mb / mx;
  ci.confidence = confidence;
  ci.resamples = resamples;
  const double tail = (1 - confidence) / 2;
  ci.lo = quantile_sorted(ratios, tail);
  ci.hi = quantile_sorted(ratios, 1 - tail);
  return ci;
}

/// The names of NoiseCall (core/enum_names.hpp).
constexpr auto kNoiseCallNames = enum_names<NoiseCall>({{NoiseCall::Faster, "faster"},
                                                        {NoiseCall::Slower, "slower"},
                                                        {NoiseCall::Same, "same"},
                                                        {NoiseCall::Inconclusive, "inconclusive"}},
                                                       "inconclusive");

std::string noise_call_id(NoiseCall c) { return kNoiseCallNames.name(c); }

NoiseVerdict decide(const RatioInterval& ci, NoiseMargins margins, size_t n) {
  NoiseVerdict v;
  v.interval = ci;
  v.margins = margins;
  const double d = std::log(ci.ratio);
  const double lo = std::log(ci.lo), hi = std::log(ci.hi);
  const double effect = std::log1p(margins.min_effect), equiv = std::log1p(margins.equivalence);
  const bool above = lo > 0, below = hi < 0;
  if (above && d >= effect) {
    v.call = NoiseCall::Faster;
  } else if (below && d <= -effect) {
    v.call = NoiseCall::Slower;
  } else if ((lo >= -equiv && hi <= equiv) || ((above || below) && std::fabs(d) < effect)) {
    v.call = NoiseCall::Same;
  } else {
    v.call = NoiseCall::Inconclusive;
    // The interval's half-width shrinks as 1/sqrt(n). A gap beyond min_effect is decided once the
    // half-width is below it; a smaller gap once the interval fits inside the equivalence margin.
    const double half = std::max(hi - d, d - lo);
    const double want = std::fabs(d) >= effect ? std::fabs(d) : equiv - std::fabs(d);
    v.more_samples = more_samples_needed(n, half, want);
  }
  return v;
}

std::optional<size_t> more_samples_needed(size_t n, double half, double want) {
  if (!(half > 0) || !(want > 0)) return std::nullopt;
  const double need = static_cast<double>(n) * (half / want) * (half / want) * 1.2;  // 20% margin
  if (!(need - static_cast<double>(n) < static_cast<double>(kMaxMoreSamples))) return std::nullopt;
  return static_cast<size_t>(std::ceil(std::max(need - static_cast<double>(n), 1.0)));
}

std::optional<NoiseVerdict> noise_verdict(const std::vector<double>& x, const std::vector<double>& base,
                                          NoiseMargins margins) {
  // Large samples: fewer resamples keep a run of many versions fast (the interval's ends move by
  // well under its width between 1000 and 2000 resamples).
  const size_t resamples = x.size() + base.size() > 4000 ? 1000 : 2000;
  auto ci = bootstrap_median_ratio(x, base, resamples);
  if (!ci) return std::nullopt;
  return decide(*ci, margins, std::min(x.size(), base.size()));
}

std::string noise_verdict_text(const NoiseVerdict& v) {
  const auto& c = v.interval;
  std::string interval = fmt::format("{:.0f}% interval {:.3f}-{:.3f}, {} bootstrap resamples", 100 * c.confidence, c.lo,
                                     c.hi, c.resamples);
  switch (v.call) {
    case NoiseCall::Faster:
      return fmt::format("{:.3f}x faster ({})", c.ratio, interval);
    case NoiseCall::Slower:
      return fmt::format("{:.3f}x slower ({})", 1 / c.ratio, interval);
    case NoiseCall::Same:
      return fmt::format("the same within {:.1f}% ({:.3f}x; {})", 100 * v.margins.equivalence, c.ratio, interval);
    case NoiseCall::Inconclusive:
      return fmt::format("inconclusive: {:.3f}x ({}): {}", c.ratio, interval,
                         v.more_samples ? fmt::format("about {} more samples per version", *v.more_samples)
                                        : std::string("the gap is at the margin: many more samples"));
  }
  return "";
}

}  // namespace kprof
