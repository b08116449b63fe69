// Timing statistics and rules (src/stages/timing/stats.hpp) on synthetic samples.
#include <gtest/gtest.h>

#include <cmath>

#include "stages/timing/stats.hpp"

using namespace kprof;

TEST(TimingStats, OddSampleMedianMeanMinMax) {
  SampleStats s = summarize({5.0, 1.0, 3.0});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  // Sample standard deviation: sqrt(((-2)^2 + 0 + 2^2) / (3 - 1)) = 2.
  EXPECT_DOUBLE_EQ(s.stddev, 2.0);
  EXPECT_DOUBLE_EQ(s.cv, 2.0 / 3.0);
}

TEST(TimingStats, EvenSampleMedianIsMeanOfMiddlePair) {
  SampleStats s = summarize({4.0, 1.0, 2.0, 3.0});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
}

TEST(TimingStats, EmptyIsNanAndSingleHasNoSpread) {
  SampleStats e = summarize({});
  EXPECT_EQ(e.n, 0u);
  EXPECT_TRUE(std::isnan(e.median));
  EXPECT_TRUE(std::isnan(e.cv));
  SampleStats one = summarize({7.5});
  EXPECT_DOUBLE_EQ(one.median, 7.5);
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  EXPECT_DOUBLE_EQ(one.cv, 0.0);
  EXPECT_FALSE(is_unstable(one));
  EXPECT_FALSE(is_unstable(e));
}

TEST(TimingStats, UnstableAboveFivePercentCv) {
  // mean 10, stddev 0.4 -> 4%: stable. mean 10, stddev 1 -> 10%: unstable.
  SampleStats stable = summarize({9.6, 10.0, 10.4});
  EXPECT_NEAR(stable.cv, 0.04, 1e-12);
  EXPECT_FALSE(is_unstable(stable));
  SampleStats noisy = summarize({9.0, 10.0, 11.0});
  EXPECT_NEAR(noisy.cv, 0.10, 1e-12);
  EXPECT_TRUE(is_unstable(noisy));
  EXPECT_FALSE(is_unstable(noisy, 0.2));  // the threshold is a parameter
}

TEST(TimingStats, ZeroMeanWithSpreadIsUnstable) {
  SampleStats s = summarize({-1.0, 1.0});
  EXPECT_TRUE(std::isnan(s.cv));
  EXPECT_TRUE(is_unstable(s));
}

TEST(TimingRules, OverheadDominatesBelowHalfTheCall) {
  EXPECT_TRUE(overhead_dominates(0.002, 0.020));   // 2 us kernel in a 20 us call
  EXPECT_FALSE(overhead_dominates(0.015, 0.020));  // 75%
  EXPECT_FALSE(overhead_dominates(0.010, 0.020));  // exactly 50%: not below
  EXPECT_TRUE(overhead_dominates(0.0099, 0.020));
  EXPECT_FALSE(overhead_dominates(NAN, 0.020));
  EXPECT_FALSE(overhead_dominates(0.001, 0.0));
}

TEST(TimingRules, KernelsExceedCallBeyondMargin) {
  EXPECT_FALSE(kernels_exceed_call(0.1015, 0.100));  // 1.5%: timer noise
  EXPECT_TRUE(kernels_exceed_call(0.150, 0.100));    // a non-blocking stream kept running
  EXPECT_FALSE(kernels_exceed_call(0.050, 0.100));
  EXPECT_FALSE(kernels_exceed_call(NAN, 0.100));
}
