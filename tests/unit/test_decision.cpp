// The keep / revert / inconclusive rule (stages/timing/decision.hpp): the distribution-free median
// interval, the A/A floor, the thresholds, the rounds still needed, confirmation, and its false
// decision rate on synthetic samples of a version against itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "stages/timing/decision.hpp"

using namespace kprof;

namespace {

/// `n` per-round times of a kernel of `ms` with multiplicative noise of relative sd `sd`.
std::vector<double> times(double ms, double sd, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0, sd);
  std::vector<double> v(n);
  for (auto& x : v) x = ms * std::exp(d(rng));
  return v;
}

}  // namespace

TEST(Decision, MedianIntervalUsesTheExactOrderStatistics) {
  EXPECT_EQ(min_samples_for(0.99), 8u);
  EXPECT_EQ(min_samples_for(0.95), 6u);
  EXPECT_FALSE(median_interval({1, 2, 3, 4, 5, 6, 7}, 0.99).has_value());  // 2 / 2^7 > 1%
  auto m = median_interval({8, 1, 7, 2, 6, 3, 5, 4}, 0.99);
  ASSERT_TRUE(m.has_value());
  EXPECT_DOUBLE_EQ(m->lo, 1);  // k = 1: the extremes
  EXPECT_DOUBLE_EQ(m->hi, 8);
  EXPECT_DOUBLE_EQ(m->median, 4.5);
  EXPECT_NEAR(m->coverage, 1 - 2.0 / 256, 1e-12);
  std::vector<double> many;
  for (int i = 1; i <= 100; ++i) many.push_back(i);
  auto w = median_interval(many, 0.99);
  ASSERT_TRUE(w.has_value());
  // Bin(100, 1/2): P(B <= 36) = 0.0033 <= 0.005 < P(B <= 37) = 0.006: k = 37.
  EXPECT_DOUBLE_EQ(w->lo, 37);
  EXPECT_DOUBLE_EQ(w->hi, 64);
  EXPECT_GE(w->coverage, 0.99);
}

TEST(Decision, PairedRatiosSkipBadRounds) {
  auto r = paired_log_ratios({2, 2, 0, 2}, {1, 2, 1});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0], std::log(2.0), 1e-12);
  EXPECT_NEAR(r[1], 0, 1e-12);
}

TEST(Decision, KeepRevertAndInconclusiveFollowTheThreshold) {
  const NoiseFloor none;
  DecisionRule rule;
  auto base = times(1.0, 0.01, 60, 1);
  auto faster = base, slower = base, same = base, close = base;
  auto noise = times(1.0, 0.01, 60, 2);
  for (size_t i = 0; i < base.size(); ++i) {
    faster[i] = base[i] / 1.03 * noise[i];
    slower[i] = base[i] * 1.03 * noise[i];
    same[i] = base[i] * noise[i];
    close[i] = base[i] / 1.012 * std::pow(noise[i], 8.0);  // 1.2% faster, a wide spread
  }
  auto k = decide_paired(base, faster, none, rule, {});
  EXPECT_EQ(k.decision, Decision::Keep) << decision_text(k);
  EXPECT_NEAR(*k.ratio, 1.03, 0.01);
  EXPECT_GT(*k.lo, 1.01);
  auto r = decide_paired(base, slower, none, rule, {});
  EXPECT_EQ(r.decision, Decision::Revert) << decision_text(r);
  auto s = decide_paired(base, same, none, rule, {});
  EXPECT_EQ(s.decision, Decision::Inconclusive) << decision_text(s);
  EXPECT_TRUE(s.within_threshold);
  EXPECT_FALSE(s.more_rounds.has_value());
  auto c = decide_paired(base, close, none, rule, {});
  EXPECT_EQ(c.decision, Decision::Inconclusive) << decision_text(c);
  EXPECT_FALSE(c.within_threshold);
  ASSERT_TRUE(c.more_rounds.has_value());
  EXPECT_GT(*c.more_rounds, 10u);
  // A larger --min-gain turns the 3% keep into an inconclusive.
  DecisionRule strict;
  strict.min_gain = 0.05;
  EXPECT_EQ(decide_paired(base, faster, none, strict, {}).decision, Decision::Inconclusive);
}

TEST(Decision, TheAAFloorIsReportedNotAThreshold) {
  auto base = times(1.0, 0.01, 60, 3);
  auto aa = times(1.0, 0.01, 60, 4);
  for (auto& x : aa) x *= 1.025;  // the second arm of the same kernel reads 2.5% slower: a biased position
  NoiseFloor f = aa_floor(base, aa);
  ASSERT_TRUE(f.aa.has_value());
  EXPECT_TRUE(f.biased);
  EXPECT_GT(f.floor, 0.025);
  auto cand = base;
  for (auto& x : cand) x /= 1.02;  // 2% faster: beyond --min-gain 1%
  auto d = decide_paired(base, cand, f, DecisionRule{}, {});
  EXPECT_EQ(d.decision, Decision::Keep) << decision_text(d);  // the threshold is --min-gain only
  EXPECT_DOUBLE_EQ(d.threshold, 0.01);
  EXPECT_DOUBLE_EQ(d.floor, f.floor);  // reported beside it
}

TEST(Decision, HolmStepsDownAcrossTheCandidates) {
  auto base = times(1.0, 0.01, 60, 30);
  std::vector<std::vector<double>> logs;
  auto cand = [&](double gain, uint64_t seed) {
    auto c = times(1.0 / (1 + gain), 0.01, 60, seed);
    logs.push_back(paired_log_ratios(base, c));
  };
  cand(0.10, 31);  // clearly faster
  cand(0.0, 32);   // the same kernel
  cand(0.0, 33);
  CandidateState wrong{false, "y[3] differs", "pass"};
  logs.push_back(logs[0]);
  auto d = decide_holm(logs, {{}, {}, {}, wrong}, 0.01, 0.01);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].decision, Decision::Keep);
  EXPECT_NEAR(d[0].confidence, 1 - 0.01 / 3, 1e-12);  // decided at the first step, m = 3 tested
  EXPECT_EQ(d[1].decision, Decision::Inconclusive);
  EXPECT_NEAR(d[1].confidence, 1 - 0.01 / 2, 1e-12);  // the second step, m' = 2, decided none
  EXPECT_EQ(d[2].decision, Decision::Inconclusive);
  EXPECT_EQ(d[3].decision, Decision::Revert);  // on its state, not a tested hypothesis
  EXPECT_TRUE(d[3].on_state);
}

TEST(Decision, IncorrectOrIntegrityFailureReverts) {
  auto base = times(1.0, 0.01, 30, 5);
  auto fast = base;
  for (auto& x : fast) x /= 1.5;
  CandidateState wrong{false, "max abs error 3.1 at y[17]", "pass"};
  auto d = decide_paired(base, fast, NoiseFloor{}, DecisionRule{}, wrong);
  EXPECT_EQ(d.decision, Decision::Revert);
  EXPECT_TRUE(d.on_state);
  EXPECT_NE(d.reason.find("y[17]"), std::string::npos);
  EXPECT_EQ(decide_paired(base, fast, NoiseFloor{}, DecisionRule{}, {true, "", "fail"}).decision, Decision::Revert);
  EXPECT_EQ(decide_paired(base, fast, NoiseFloor{}, DecisionRule{}, {true, "", "warn"}).decision, Decision::Keep);
}

TEST(Decision, TooFewRoundsSayHowManyMore) {
  auto d = decide_paired({1, 1, 1}, {0.5, 0.5, 0.5}, NoiseFloor{}, DecisionRule{}, {});
  EXPECT_EQ(d.decision, Decision::Inconclusive);
  ASSERT_TRUE(d.more_rounds.has_value());
  EXPECT_EQ(*d.more_rounds, 5u);  // 8 at 99%
  // A round with a zero time is skipped and counted.
  auto z = decide_paired({1, 1, 0, 1}, {1, 1, 1, 1}, NoiseFloor{}, DecisionRule{}, {});
  EXPECT_EQ(z.zero_rounds, 1u);
}

TEST(Decision, AcrossRunsTheBootstrapIntervalDecides) {
  auto base = times(1.0, 0.01, 200, 12);
  auto slower = times(1.05, 0.01, 200, 13);
  auto d = decide_unpaired(base, slower, 0.02, DecisionRule{}, {});
  EXPECT_EQ(d.decision, Decision::Revert) << decision_text(d);
  EXPECT_FALSE(d.paired);
  EXPECT_DOUBLE_EQ(d.threshold, 0.02);
  auto same = decide_unpaired(base, times(1.01, 0.01, 200, 14), 0.02, DecisionRule{}, {});
  EXPECT_EQ(same.decision, Decision::Inconclusive) << decision_text(same);  // 1% is below the 2% floor
}

TEST(Decision, FalseDecisionRateOfAVersionAgainstItselfIsAtMostOnePercent) {
  // 2000 runs of 60 rounds of one kernel against itself (heavy-tailed noise: a t-like mixture).
  std::mt19937_64 rng(15);
  std::normal_distribution<double> d(0, 0.01);
  std::uniform_real_distribution<double> u(0, 1);
  int false_decisions = 0;
  const int runs = 2000;
  for (int run = 0; run < runs; ++run) {
    std::vector<double> a(60), b(60);
    for (size_t i = 0; i < a.size(); ++i) {
      const double drift = 1 + 0.1 * u(rng);  // a round-wide factor both arms share
      a[i] = drift * std::exp(d(rng) * (u(rng) < 0.1 ? 5 : 1));
      b[i] = drift * std::exp(d(rng) * (u(rng) < 0.1 ? 5 : 1));
    }
    DecisionRule rule;
    rule.min_gain = 0;  // the worst case: no margin beyond the interval
    if (decide_paired(a, b, NoiseFloor{}, rule, {}).decision != Decision::Inconclusive) ++false_decisions;
  }
  std::printf("a kernel against itself, %d runs of 60 rounds, --min-gain 0: %d keep or revert\n", runs,
              false_decisions);
  EXPECT_LE(false_decisions, runs / 100);
}
