// The timing statistics (stages/timing/noise.hpp): the relative standard error of the median that
// stops the timed calls, and the bootstrap verdict that ranks two versions.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "stages/timing/noise.hpp"

using namespace kprof;

namespace {

std::vector<double> normal_sample(double mean, double sd, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, sd);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/// The percentile bootstrap of median(base) / median(x) by copying (the textbook way, O(n) per
/// resample), to check the order-statistic draws of large samples against.
std::pair<double, double> copying_bootstrap(const std::vector<double>& x, const std::vector<double>& base,
                                            size_t resamples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto median_of_resample = [&](const std::vector<double>& v) {
    std::uniform_int_distribution<size_t> pick(0, v.size() - 1);
    std::vector<double> r(v.size());
    for (auto& e : r) e = v[pick(rng)];
    std::sort(r.begin(), r.end());
    size_t n = r.size();
    return n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
  };
  std::vector<double> ratios;
  for (size_t i = 0; i < resamples; ++i) ratios.push_back(median_of_resample(base) / median_of_resample(x));
  std::sort(ratios.begin(), ratios.end());
  return {ratios[resamples * 25 / 1000], ratios[resamples * 975 / 1000]};
}

}  // namespace

TEST(Noise, RelativeStandardErrorOfTheMedianShrinksAsOneOverSqrtN) {
  // sigma 2% of the mean: 1.2533 * 0.02 / sqrt(n).
  double se100 = median_rel_stderr(normal_sample(10.0, 0.2, 100, 1));
  double se1600 = median_rel_stderr(normal_sample(10.0, 0.2, 1600, 2));
  EXPECT_NEAR(se100, 1.2533 * 0.02 / 10, 0.0008);
  EXPECT_NEAR(se1600, 1.2533 * 0.02 / 40, 0.0002);
  EXPECT_NEAR(se100 / se1600, 4.0, 0.8);
}

TEST(Noise, AFewOutliersDoNotInflateTheStandardError) {
  auto xs = normal_sample(10.0, 0.05, 200, 3);
  double clean = median_rel_stderr(xs);
  for (int i = 0; i < 6; ++i) xs[static_cast<size_t>(i)] = 30.0;  // six throttled calls
  double with_outliers = median_rel_stderr(xs);
  EXPECT_LT(with_outliers, clean * 1.2);
  EXPECT_LT(with_outliers, kDefaultNoiseTarget);
}

TEST(Noise, StandardErrorEdgeCases) {
  EXPECT_TRUE(std::isnan(median_rel_stderr({})));
  EXPECT_TRUE(std::isnan(median_rel_stderr({1.0})));
  EXPECT_DOUBLE_EQ(median_rel_stderr({2.0, 2.0, 2.0, 5.0}), 0.0);  // MAD 0
}

TEST(Noise, BootstrapIntervalHoldsTheTrueRatio) {
  auto base = normal_sample(13.5, 0.22, 100, 4), x = normal_sample(13.3, 0.261, 100, 5);
  auto ci = bootstrap_median_ratio(x, base);
  ASSERT_TRUE(ci.has_value());
  EXPECT_NEAR(ci->ratio, 13.5 / 13.3, 0.01);
  EXPECT_LT(ci->lo, ci->ratio);
  EXPECT_GT(ci->hi, ci->ratio);
  EXPECT_GT(ci->lo, 1.0);  // 6 standard errors apart: the interval excludes 1
  EXPECT_EQ(ci->resamples, 2000u);
  auto again = bootstrap_median_ratio(x, base);
  EXPECT_DOUBLE_EQ(again->lo, ci->lo);  // seeded: reproducible
  EXPECT_FALSE(bootstrap_median_ratio({1.0}, base).has_value());
}

TEST(Noise, VerdictFasterSlowerSame) {
  auto base = normal_sample(13.5, 0.22, 100, 6), x = normal_sample(13.3, 0.261, 100, 7);
  EXPECT_EQ(noise_verdict(x, base)->call, NoiseCall::Faster);
  EXPECT_EQ(noise_verdict(base, x)->call, NoiseCall::Slower);
  // Across runs the 2% floor holds: a 1.2% gap (the same calls, each 1.2% faster) is not claimed,
  // while within one run it is.
  auto y = base;
  for (auto& v : y) v /= 1.012;
  EXPECT_EQ(noise_verdict(y, base)->call, NoiseCall::Faster);
  EXPECT_NE(noise_verdict(y, base, kCrossRunMargins)->call, NoiseCall::Faster);
  EXPECT_NEAR(noise_verdict(y, base, kCrossRunMargins)->interval.ratio, 1.012, 1e-9);
  auto a = normal_sample(5.0, 0.01, 400, 8), b = normal_sample(5.0, 0.01, 400, 9);
  auto v = noise_verdict(a, b);
  EXPECT_EQ(v->call, NoiseCall::Same) << noise_verdict_text(*v);
  EXPECT_NE(noise_verdict_text(*v).find("the same within 1.0%"), std::string::npos);
}

TEST(Noise, DecideFromAnInterval) {
  // Significant but under the 0.5% effect: the same.
  EXPECT_EQ(decide({1.003, 1.001, 1.005, 0.95, 2000}, kWithinRunMargins, 1000).call, NoiseCall::Same);
  // Significant and 2%: faster.
  EXPECT_EQ(decide({1.02, 1.01, 1.03, 0.95, 2000}, kWithinRunMargins, 100).call, NoiseCall::Faster);
  // Straddles 1, too wide for the same: inconclusive, with a sample estimate that grows with the width.
  auto narrow = decide({1.01, 0.995, 1.025, 0.95, 2000}, kWithinRunMargins, 50);
  auto wide = decide({1.01, 0.97, 1.05, 0.95, 2000}, kWithinRunMargins, 50);
  EXPECT_EQ(narrow.call, NoiseCall::Inconclusive);
  EXPECT_EQ(wide.call, NoiseCall::Inconclusive);
  ASSERT_TRUE(narrow.more_samples && wide.more_samples);
  EXPECT_LT(*narrow.more_samples, *wide.more_samples);
  // (half-width 0.015 / gap 0.01)^2 * 50 * 1.2 - 50 = about 85
  EXPECT_NEAR(static_cast<double>(*narrow.more_samples), 85.0, 15.0);
  EXPECT_NE(noise_verdict_text(narrow).find("about"), std::string::npos);
}

// Large samples (4096 values or more) draw each resample's median as an order statistic: the same
// interval as copying, odd and even sizes, with ties (timer ticks), at O(1) per resample.
TEST(Noise, LargeSamplesGiveTheCopyingBootstrapsInterval) {
  for (size_t n : {5001u, 8000u}) {
    auto base = normal_sample(13.5, 0.4, n, 7), x = normal_sample(13.45, 0.5, n + 1, 8);
    for (auto* v : {&base, &x})
      for (double& e : *v) e = std::round(e * 64) / 64;  // ties, as a timer's resolution gives
    auto ci = bootstrap_median_ratio(x, base);
    ASSERT_TRUE(ci.has_value());
    auto [lo, hi] = copying_bootstrap(x, base, 1000, 11);
    const double width = hi - lo;
    ASSERT_GT(width, 0);
    EXPECT_NEAR(ci->lo, lo, 0.15 * width) << n;  // Monte Carlo error of two 2.5% quantiles
    EXPECT_NEAR(ci->hi, hi, 0.15 * width) << n;
  }
}

// A million samples per side: the interval in well under a second (copying took minutes).
TEST(Noise, AMillionSamplesPerSideAreBootstrappedInMoments) {
  auto base = normal_sample(2.0, 0.05, 1000000, 21), x = normal_sample(1.9, 0.05, 1000000, 22);
  auto t0 = std::chrono::steady_clock::now();
  auto ci = bootstrap_median_ratio(x, base);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(ci.has_value());
  EXPECT_NEAR(ci->ratio, 2.0 / 1.9, 1e-3);
  EXPECT_GT(ci->lo, 1.04);  // a million samples: the interval is narrow
  EXPECT_LT(ci->hi, 1.07);
  EXPECT_LT(s, 10.0);  // two sorts of a million values; 2000 resamples of O(1) each
}
