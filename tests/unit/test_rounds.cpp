// The interleaved rounds (stages/timing/rounds.hpp) driven by a fake timer and clock: the seeded
// order per round, the budget, the band of clock and throttle state, the memory plan; and issue
// 43's CPU evidence: with a step or a ramp drift of the GPU's speed, block timing (version A's
// calls, then version B's) decides wrongly and interleaved rounds with paired ratios decide right.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "core/error.hpp"
#include "stages/timing/decision.hpp"
#include "stages/timing/rounds.hpp"
#include "fake_drifting_gpu.hpp"

using namespace kprof;

namespace {

using FakeGpu = testutil::FakeDriftingGpu;

/// Block timing of two versions: `n` calls of A, then `n` of B; decided across the two samples
/// (no pairs), as a per-version block timing allows, with no floor beyond --min-gain.
CandidateDecision block_decision(FakeGpu& g, size_t n) {
  std::vector<double> a, b;
  for (size_t i = 0; i < n; ++i) a.push_back(g.call(0));
  for (size_t i = 0; i < n; ++i) b.push_back(g.call(1));
  return decide_unpaired(a, b, 0, DecisionRule{}, {});
}

/// Interleaved rounds of the two versions (with the A/A arm) and the paired decision.
CandidateDecision interleaved_decision(FakeGpu& g, int rounds) {
  RoundOptions o;
  o.rounds = rounds;
  RoundsResult r = run_rounds(2, o, g.hooks());
  NoiseFloor f = aa_floor(r.kept_ms(0), r.kept_ms(2));
  return decide_paired(r.kept_ms(0), r.kept_ms(1), f, DecisionRule{}, {});
}

constexpr int kRounds = 60;
constexpr size_t kBlockCalls = kRounds * 3;  // the calls each version gets in the rounds (3 per round)
// Fake seconds of the two blocks (2 x 180 calls) and of the rounds (60 x 3 arms x 3 calls), ~2 ms a call.
constexpr double kBlockS = 2 * kBlockCalls * 0.002;
constexpr double kRoundsS = kRounds * 9 * 0.002;

}  // namespace

TEST(Rounds, EveryRoundTimesEveryArmInAFreshSeededOrder) {
  FakeGpu g;
  g.base_ms = {1.0, 2.0, 3.0};
  RoundOptions o;
  o.rounds = 40;
  RoundHooks h = g.hooks();
  std::vector<int> sets_seen;
  h.time_call = [&](int v, int set) {
    sets_seen.push_back(set);
    return g.call(v);
  };
  h.sets = 3;
  RoundsResult r = run_rounds(3, o, h);
  ASSERT_EQ(r.rounds.size(), 40u);
  EXPECT_EQ(r.arms(), 4);
  std::set<std::vector<int>> orders;
  for (const auto& round : r.rounds) {
    std::vector<int> sorted = round.order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
    orders.insert(round.order);
    EXPECT_NEAR(round.ms[3], round.ms[0], 0.05);  // the A/A arm is version 0 again
    EXPECT_NEAR(round.ms[2], 3.0, 0.1);
  }
  EXPECT_GT(orders.size(), 10u);         // new orders, not one
  EXPECT_EQ(g.calls_of[0], 40 * 2 * 3);  // baseline twice per round, 3 calls each
  EXPECT_EQ(g.calls_of[1], 40 * 3);
  // Each arm's three calls of a round on sets 0, 1, 2: never twice in a row on the same inputs.
  EXPECT_EQ(std::vector<int>(sets_seen.begin(), sets_seen.begin() + 6), (std::vector<int>{0, 1, 2, 0, 1, 2}));
  h.sets = 2;  // two sets, three calls: round 1 starts where round 0 left off
  sets_seen.clear();
  o.rounds = 2;
  run_rounds(3, o, h);
  EXPECT_EQ(sets_seen[0], 0);
  EXPECT_EQ(sets_seen[1], 1);
  EXPECT_EQ(sets_seen[4 * 3], 1);  // round 1, first call: set (1 * 3) % 2
  FakeGpu g2;
  g2.base_ms = g.base_ms;
  o.seed = r.seed;  // the seed drawn for r, given again: the same orders
  RoundsResult again = run_rounds(3, o, g2.hooks());
  ASSERT_EQ(again.rounds.size(), 2u);
  EXPECT_EQ(again.seed, r.seed);
  EXPECT_EQ(again.rounds[1].order, r.rounds[1].order);  // seeded
}

TEST(Rounds, TimesKnownAfterThePassFillTheRoundsInCallOrder) {
  // A CUPTI pass: the hook returns 0 and the kernel times arrive once the session ends.
  RoundOptions o;
  o.rounds = 12;
  o.calls_per_slot = 2;
  RoundHooks h;
  int calls = 0;
  std::vector<int> version_of_call;
  h.time_call = [&](int v, int) {
    ++calls;
    version_of_call.push_back(v);
    return 0.0;
  };
  RoundsResult r = run_rounds(2, o, h);
  ASSERT_EQ(calls, 12 * 3 * 2);
  std::vector<double> per_call;
  for (size_t i = 0; i < version_of_call.size(); ++i)  // version v takes 1 + v ms; the second call of a pair 0.2 more
    per_call.push_back(1.0 + version_of_call[i] + (i % 2 ? 0.2 : 0.0));
  ASSERT_TRUE(refill_round_times(r, per_call, 2));
  for (const auto& round : r.rounds) {
    EXPECT_DOUBLE_EQ(round.ms[0], 1.1);  // the median of 1.0 and 1.2
    EXPECT_DOUBLE_EQ(round.ms[1], 2.1);
    EXPECT_DOUBLE_EQ(round.ms[2], 1.1);  // the A/A arm: version 0 again
  }
  per_call.pop_back();
  EXPECT_FALSE(refill_round_times(r, per_call, 2));
  EXPECT_DOUBLE_EQ(r.rounds[0].ms[1], 2.1);  // unchanged
}

TEST(Rounds, TheBudgetStopsAfterTheMinimumRounds) {
  FakeGpu g;
  g.base_ms = {100.0, 100.0};  // 0.1 s per call: 0.9 s per round
  RoundOptions o;
  o.rounds = 1000;
  o.budget_s = 1.0;
  RoundsResult r = run_rounds(2, o, g.hooks());
  EXPECT_EQ(r.rounds.size(), static_cast<size_t>(kMinRounds));
  EXPECT_EQ(r.stopped_by, "time budget");
  o.rounds = 0;
  EXPECT_THROW(run_rounds(2, o, g.hooks()), Error);
}

TEST(Rounds, TheBandDiscardsRoundsOffTheRunsClockOrThrottleState) {
  std::vector<Round> rounds(10);
  for (auto& r : rounds) r.cond.sm_mhz = 1980;
  rounds[2].cond.sm_mhz = 1755;  // 11% low
  rounds[5].cond.throttled = true;
  rounds[7].cond.sm_mhz.reset();  // no reading: judged by throttle state only
  RoundBand b = apply_band(rounds, kRoundBandFrac);
  EXPECT_EQ(*b.ref_mhz, 1980u);
  EXPECT_EQ(b.lo_mhz, 1940u);
  EXPECT_EQ(b.hi_mhz, 2020u);
  EXPECT_EQ(b.discarded_clock, 1u);
  EXPECT_EQ(b.discarded_throttle, 1u);
  EXPECT_TRUE(rounds[2].discarded);
  EXPECT_NE(rounds[2].why.find("1755"), std::string::npos);
  EXPECT_TRUE(rounds[5].discarded);
  EXPECT_FALSE(rounds[7].discarded);
  // A run throttled throughout keeps its throttled rounds (its state) and drops the others.
  for (auto& r : rounds) r.cond = {1600, true};
  rounds[1].cond.throttled = false;
  b = apply_band(rounds, kRoundBandFrac);
  EXPECT_TRUE(b.throttled);
  EXPECT_TRUE(rounds[1].discarded);
  EXPECT_EQ(b.discarded_throttle, 1u);
}

TEST(Rounds, TheBandIsReferencedToAClockStateNotTheAverageOfTwo) {
  // Two clock states 5% apart, 30 rounds each: the median of the clocks lies between them, and a
  // band around it held no round; the band around a state keeps that state's rounds.
  std::vector<Round> rounds(60);
  for (size_t i = 0; i < rounds.size(); ++i) rounds[i].cond.sm_mhz = i < 30 ? 1980 : 1890;
  RoundBand b = apply_band(rounds, kRoundBandFrac);
  EXPECT_EQ(*b.ref_mhz, 1980u);  // a tie: the higher state
  EXPECT_EQ(b.discarded_clock, 30u);
  rounds[45].cond.sm_mhz = 1875;  // 31 rounds now near 1890
  for (size_t i = 0; i < 2; ++i) rounds[i].cond.sm_mhz = 1890;
  b = apply_band(rounds, kRoundBandFrac);
  EXPECT_EQ(*b.ref_mhz, 1890u);
  EXPECT_EQ(b.discarded_clock, 28u);
}

TEST(Rounds, ZeroTimeCallsAreCountedAndTheirRoundsDiscarded) {
  FakeGpu g;
  g.base_ms = {1.0, 1.0};
  RoundOptions o;
  o.rounds = 20;
  o.seed = 5;
  RoundHooks h = g.hooks();
  int calls = 0;
  h.time_call = [&](int v, int) { return ++calls % 50 == 0 ? 0.0 : g.call(v); };  // every 50th call records nothing
  RoundsResult r = run_rounds(2, o, h);
  EXPECT_EQ(r.zero_calls, static_cast<size_t>(20 * 3 * 3 / 50));
  EXPECT_EQ(r.band.discarded_zero, r.zero_calls);
  EXPECT_EQ(r.kept(), 20 - r.zero_calls);
  EXPECT_EQ(r.seed, 5u);
}

TEST(Rounds, TheOrderSeedIsDrawnPerRunAndTheAAArmCanHaveItsOwnInstance) {
  FakeGpu g;
  g.base_ms = {1.0, 1.0, 1.0};
  RoundOptions o;
  o.rounds = 12;
  RoundHooks h = g.hooks();
  h.aa_version = 2;  // the baseline's second instance
  std::set<int> versions_called;
  h.time_call = [&](int v, int) {
    versions_called.insert(v);
    return g.call(v);
  };
  RoundsResult a = run_rounds(2, o, h), b = run_rounds(2, o, h);
  EXPECT_NE(a.seed, b.seed);  // o.seed 0: drawn per run
  EXPECT_NE(a.seed, 0u);
  EXPECT_EQ(versions_called, (std::set<int>{0, 1, 2}));  // arm 2 (A/A) called version 2, not 0
  EXPECT_EQ(a.arms(), 3);
}

TEST(Rounds, MemoryPlanSaysWhenTheVersionsDoNotFitTogether) {
  const size_t gib = size_t{1} << 30;
  auto ok = plan_round_memory({10 * gib, 10 * gib}, 3, gib, 100 * gib);
  EXPECT_TRUE(ok.fits);
  EXPECT_EQ(ok.sets, 3);
  EXPECT_TRUE(ok.message.empty());
  auto fewer = plan_round_memory({20 * gib, 20 * gib}, 3, gib, 100 * gib);  // 121 GiB at 3 sets, 81 at 2
  EXPECT_TRUE(fewer.fits);
  EXPECT_EQ(fewer.sets, 2);
  EXPECT_NE(fewer.message.find("2 input sets"), std::string::npos);
  auto no = plan_round_memory({60 * gib, 60 * gib}, 3, gib, 100 * gib);
  EXPECT_FALSE(no.fits);
  EXPECT_NE(no.message.find("do not fit together"), std::string::npos);
}

// Issue 43's CPU evidence, step drift: the GPU runs 5% slower from the middle of the run on (a
// clock step). A and B are the same kernel. Block timing sees B 5% slower and reverts it; the
// interleaved rounds see the step in both arms of each round and stay inconclusive (no gain).
TEST(Rounds, StepDriftBlockTimingDecidesWronglyInterleavedRight) {
  auto step = [](double t) { return t < kBlockS / 2 ? 1.0 : 1.05; };
  FakeGpu block;
  block.base_ms = {1.0, 1.0};
  block.drift = step;
  auto b = block_decision(block, kBlockCalls);
  EXPECT_EQ(b.decision, Decision::Revert) << decision_text(b);
  FakeGpu inter;
  inter.base_ms = {1.0, 1.0};
  inter.drift = [](double t) { return t < kRoundsS / 2 ? 1.0 : 1.05; };  // the rounds' own midpoint
  auto i = interleaved_decision(inter, kRounds);
  EXPECT_EQ(i.decision, Decision::Inconclusive) << decision_text(i);
  EXPECT_TRUE(i.within_threshold) << decision_text(i);
  std::printf("step, same kernel: block %s\n           interleaved %s\n", decision_text(b).c_str(),
              decision_text(i).c_str());
}

// Ramp drift: the GPU slows by 10% over the run (heating), B is truly 3% faster. Block timing
// times B late, when the GPU is slower, and reverts it; interleaved rounds keep it.
TEST(Rounds, RampDriftBlockTimingDecidesWronglyInterleavedRight) {
  FakeGpu block;
  block.base_ms = {1.0, 1.0 / 1.03};
  block.drift = [](double t) { return 1 + 0.10 * t / kBlockS; };
  auto b = block_decision(block, kBlockCalls);
  EXPECT_EQ(b.decision, Decision::Revert) << decision_text(b);
  FakeGpu inter;
  inter.base_ms = {1.0, 1.0 / 1.03};
  inter.drift = [](double t) { return 1 + 0.10 * t / kRoundsS; };
  auto i = interleaved_decision(inter, kRounds);
  EXPECT_EQ(i.decision, Decision::Keep) << decision_text(i);
  EXPECT_NEAR(*i.ratio, 1.03, 0.01);
  std::printf("ramp, B 3%% faster: block %s\n                   interleaved %s\n", decision_text(b).c_str(),
              decision_text(i).c_str());
}

// The CPU analogue of the H200 check: a kernel against itself 20 times (fresh noise and drift each
// time) gives at most one keep or revert.
TEST(Rounds, AKernelAgainstItselfTwentyTimesAtMostOneKeepOrRevert) {
  int decided = 0;
  for (uint64_t s = 0; s < 20; ++s) {
    FakeGpu g;
    g.base_ms = {1.0, 1.0};
    g.rng.seed(100 + s);
    g.drift = [s](double t) { return 1 + 0.05 * std::sin(t * (3.0 + static_cast<double>(s))); };
    if (interleaved_decision(g, kRounds).decision != Decision::Inconclusive) ++decided;
  }
  EXPECT_LE(decided, 1);
}
