// `kprof run`'s verdicts between versions from interleaved rounds (issue 49 item 1;
// stages/results/decision.hpp apply_round_verdicts), driven by a fake GPU whose speed drifts: each
// version first timed in its own block (the per-version timing the integrity checks need, whose
// samples compare_versions ranks), then the versions in rounds (run_rounds through its hooks) and
// decide_versions, as flows/run/run_decide.cpp and run_workflow.cpp do without --decide.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "report/comparison.hpp"
#include "stages/results/decision.hpp"
#include "stages/results/versions.hpp"
#include "stages/timing/rounds.hpp"
#include "fake_drifting_gpu.hpp"
#include "stages/timing/stats.hpp"

using namespace kprof;

namespace {

/// The fake GPU with its own seed (7), its hooks with 3 input sets.
struct DriftingGpu : testutil::FakeDriftingGpu {
  DriftingGpu() : FakeDriftingGpu(7) {}
  RoundHooks hooks() {
    RoundHooks h = FakeDriftingGpu::hooks();
    h.sets = 3;
    return h;
  }
};

/// A correct version's row from its block of `n` calls (its own timing).
VersionRow block_row(DriftingGpu& g, int v, size_t n) {
  std::vector<double> s;
  for (size_t i = 0; i < n; ++i) s.push_back(g.call(v));
  VersionRow r;
  r.name = "v" + std::to_string(v);
  r.status = VersionStatus::Pass;
  r.profiled = true;
  const SampleStats st = summarize(s);
  r.time_ms = st.median;
  r.spread_ms = st.stddev;
  r.time_samples_ms = s;
  return r;
}

/// The run without --decide on `g`: blocks of 100 calls per version, then 60 rounds; the
/// comparison with the rounds' verdicts. `arms`: row -> arm (-1: not kept for the rounds).
struct RunResult {
  std::vector<VersionRow> rows;
  std::vector<RowComparison> blocks;  ///< compare_versions alone (the ranking before issue 49 item 1)
  std::vector<RowComparison> cmp;     ///< with the rounds' verdicts
  DecisionReport decision;
};

RunResult run_on(DriftingGpu& g, std::vector<int> arms, bool rounds_run = true) {
  RunResult out;
  for (size_t v = 0; v < g.base_ms.size(); ++v) out.rows.push_back(block_row(g, static_cast<int>(v), 100));
  out.blocks = compare_versions(out.rows);
  std::vector<double> timed_ms;
  std::vector<int> arm_version;  // arm -> version
  for (size_t i = 0; i < arms.size(); ++i)
    if (arms[i] >= 0) arm_version.push_back(static_cast<int>(i));
  RoundHooks h = g.hooks();
  h.time_call = [&g, &arm_version](int a, int) { return g.call(arm_version.at(static_cast<size_t>(a))); };
  RoundOptions o;
  o.seed = 11;
  RoundsResult r = run_rounds(static_cast<int>(arm_version.size()), o, h);
  out.decision = decide_versions(out.rows, arms, rounds_run ? r : RoundsResult{}, nullptr, DecisionRule{});
  if (!rounds_run) out.decision.not_run = "the versions' buffers do not fit together";
  out.cmp = out.blocks;
  apply_round_verdicts(out.rows, arms, out.decision, rounds_run ? &r : nullptr, out.cmp);
  return out;
}

}  // namespace

// Two identical versions and a 5% clock step in the middle of the run: the blocks put the second
// version after the step and call it slower; the rounds see the step in both arms and say same.
TEST(RunVerdicts, AClockStepMakesTheBlocksSaySlowerTheRoundsSaySame) {
  DriftingGpu g;
  g.base_ms = {1.0, 1.0};
  // The blocks take ~0.4 s (B from 0.2 s on, after the step); the rounds ~1.1 s from there, the
  // clock stepping back in their middle.
  g.drift = [](double t) { return t < 0.2 || t > 0.9 ? 1.0 : 1.05; };
  const RunResult r = run_on(g, {0, 1});
  EXPECT_EQ(r.blocks[1].change, Change::Slower);
  EXPECT_EQ(r.cmp[1].change, Change::Same) << decision_text(r.decision.versions[0].decision);
  ASSERT_TRUE(r.cmp[1].verdict);
  EXPECT_EQ(r.cmp[1].verdict->interval.resamples, 0u);  // the rounds' interval, not a bootstrap
  EXPECT_NEAR(r.cmp[1].verdict->interval.ratio, 1.0, 0.01);
  EXPECT_EQ(r.cmp[0].change, Change::Baseline);
  // comparison.json says how the verdict was made; comparison.md's cell stays "same (within noise)".
  const auto j = comparison_json(r.rows, r.cmp, {}, "call time");
  EXPECT_EQ(j["versions"][1]["comparison"]["verdict_vs_first"]["method"], "rounds");
  EXPECT_EQ(j["versions"][1]["comparison"]["vs_first"], "same");
}

// A candidate truly 3% faster under a 10% slowdown ramp: the blocks time it late (slower GPU) and
// call it slower; the rounds call it faster, and the baseline is ranked below it from the rounds.
TEST(RunVerdicts, ARealGainUnderARampIsFasterFromTheRounds) {
  DriftingGpu g;
  g.base_ms = {1.0, 1.0 / 1.03};
  g.drift = [](double t) { return 1 + 0.10 * t / 0.4; };
  const RunResult r = run_on(g, {0, 1});
  EXPECT_EQ(r.blocks[1].change, Change::Slower);
  EXPECT_EQ(r.cmp[1].change, Change::Faster);
  EXPECT_NEAR(r.cmp[1].verdict->interval.ratio, 1.03, 0.01);
  EXPECT_EQ(r.decision.versions[0].decision.decision, Decision::Keep);
  // The fastest is the slower-timed candidate by its block median; the vs-fastest verdicts of the
  // others come from the rounds too: the baseline is ranked below whichever is the fastest.
  const size_t fastest = r.cmp[0].fastest ? 0 : 1;
  const size_t other = 1 - fastest;
  ASSERT_TRUE(r.cmp[other].verdict_vs_fastest);
  EXPECT_EQ(r.cmp[other].verdict_vs_fastest->interval.resamples, 0u);
}

// A version not kept for the rounds (its buffers did not fit beside the others') is inconclusive,
// never faster or slower from its block, even 10% faster there; the others are decided.
TEST(RunVerdicts, AVersionNotInTheRoundsIsInconclusiveNeverRankedFromItsBlock) {
  DriftingGpu g;
  g.base_ms = {1.0, 1.0, 1.0 / 1.10};
  const RunResult r = run_on(g, {0, 1, -1});
  EXPECT_EQ(r.blocks[2].change, Change::Faster);
  EXPECT_EQ(r.cmp[2].change, Change::Inconclusive);
  EXPECT_FALSE(r.cmp[2].verdict);
  EXPECT_EQ(r.cmp[1].change, Change::Same);
  EXPECT_EQ(r.decision.versions[1].decision.reason, "not timed in the rounds");
  EXPECT_NE(comparison_markdown(r.rows, r.cmp, {}, "call time").find("inconclusive (not timed in the rounds)"),
            std::string::npos);
}

// When no rounds ran (the versions do not fit together, or a call failed), every version but the
// baseline is inconclusive and none is ranked below the fastest.
TEST(RunVerdicts, WithoutRoundsEveryVerdictIsInconclusive) {
  DriftingGpu g;
  g.base_ms = {1.0, 0.8, 1.2};
  const RunResult r = run_on(g, {0, 1, 2}, /*rounds_run=*/false);
  EXPECT_EQ(r.blocks[1].change, Change::Faster);
  EXPECT_EQ(r.blocks[2].change, Change::Slower);
  EXPECT_EQ(r.cmp[0].change, Change::Baseline);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(r.cmp[i].change, Change::Inconclusive) << i;
    EXPECT_FALSE(r.cmp[i].verdict) << i;
  }
  EXPECT_TRUE(r.cmp[1].fastest);
  EXPECT_TRUE(r.cmp[0].tied_with_fastest && r.cmp[2].tied_with_fastest);
}
