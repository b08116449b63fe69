// The decision block of `kprof run --decide` (stages/results/decision.hpp, report/decision_report.hpp)
// built from synthetic rounds, `kprof compare`'s cross-run decision and gate under the same rule,
// and the --decide options of `kprof run`.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "report/decision_report.hpp"
#include "stages/results/compare.hpp"
#include "stages/results/decision.hpp"

using namespace kprof;

namespace {

/// Rounds of three versions plus the A/A arm: version 1 is `gain1` faster, version 2 `gain2`; a
/// round-wide drift both arms share; round 3 off the clock band.
RoundsResult rounds_of(double gain1, double gain2, int n) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.004);
  RoundsResult r;
  r.versions = 3;
  r.aa_arm = true;
  r.stopped_by = "rounds";
  for (int i = 0; i < n; ++i) {
    Round round;
    const double drift = 1 + 0.05 * std::sin(i);
    round.ms = {drift * std::exp(noise(rng)), drift / (1 + gain1) * std::exp(noise(rng)),
                drift / (1 + gain2) * std::exp(noise(rng)), drift * std::exp(noise(rng))};
    round.order = {0, 1, 2, 3};
    round.cond.sm_mhz = i == 3 ? 1500 : 1980;
    r.rounds.push_back(round);
  }
  r.band = apply_band(r.rounds, kRoundBandFrac);
  return r;
}

VersionRow row(const std::string& name, VersionStatus s = VersionStatus::Pass) {
  VersionRow r;
  r.name = name;
  r.status = s;
  if (s != VersionStatus::Pass) r.status_reason = "3 of 1024 elements differ";
  return r;
}

}  // namespace

TEST(DecisionReport, OneDecisionPerCandidateWithTheFloorAndDiscards) {
  RoundsResult r = rounds_of(0.03, -0.03, 60);
  std::vector<VersionRow> rows = {row("v0"), row("v1"), row("v2"), row("v3", VersionStatus::Fail)};
  DecisionReport d = decide_versions(rows, {0, 1, 2, -1}, r, nullptr, DecisionRule{});
  ASSERT_TRUE(d.not_run.empty());
  ASSERT_EQ(d.versions.size(), 3u);
  EXPECT_EQ(d.versions[0].decision.decision, Decision::Keep) << decision_text(d.versions[0].decision);
  EXPECT_EQ(d.versions[1].decision.decision, Decision::Revert) << decision_text(d.versions[1].decision);
  EXPECT_EQ(d.versions[2].decision.decision, Decision::Revert);  // not correct
  EXPECT_TRUE(d.versions[2].decision.on_state);
  EXPECT_EQ(d.rounds, 60u);
  EXPECT_EQ(d.rounds_discarded, 1u);
  EXPECT_EQ(d.versions[0].decision.rounds, 59u);
  ASSERT_TRUE(d.floor.aa.has_value());
  EXPECT_LT(d.floor.floor, 0.01);
  nlohmann::json j = decision_json(d);
  EXPECT_EQ(j["rounds_used"], 59);
  EXPECT_EQ(j["rounds_discarded"], 1);
  EXPECT_EQ(j["discarded_clock"], 1);
  EXPECT_EQ(j["band"]["sm_mhz"], 1980);
  EXPECT_TRUE(j["aa_floor_pct"].is_number());
  EXPECT_DOUBLE_EQ(j["min_gain_pct"].get<double>(), 1.0);
  EXPECT_EQ(j["versions"][0]["name"], "v1");
  EXPECT_EQ(j["versions"][0]["decision"], "keep");
  EXPECT_EQ(j["versions"][0]["interval"].size(), 2u);
  EXPECT_NE(j["rule"].get<std::string>().find("threshold T = --min-gain"), std::string::npos);
  EXPECT_EQ(j["aa_check"], "passed");
  EXPECT_DOUBLE_EQ(j["threshold_pct"].get<double>(), 1.0);
  EXPECT_EQ(j["candidates"], 2);  // v3 was not timed
  EXPECT_EQ(j["correction"], "holm");
  EXPECT_TRUE(j.contains("order_seed"));
  EXPECT_EQ(j["zero_time_calls"], 0);
  std::string md = decision_markdown(d);
  EXPECT_NE(md.find("- v1: **keep**: faster by"), std::string::npos) << md;
  EXPECT_NE(md.find("- v2: **revert**: slower by"), std::string::npos) << md;
  EXPECT_NE(md.find("- v3: **revert**: not correct"), std::string::npos) << md;
}

TEST(DecisionReport, ConfirmationPoolsBothSetsAndAnIncorrectBaseline) {
  RoundsResult a = rounds_of(0.03, 0.0, 40), b = rounds_of(0.03, 0.0, 40);
  std::vector<VersionRow> rows = {row("v0"), row("v1"), row("v2")};
  DecisionReport d = decide_versions(rows, {0, 1, 2}, a, &b, DecisionRule{});
  EXPECT_TRUE(d.confirmation);
  EXPECT_EQ(d.rounds, 80u);
  // v1's 3% is clear in the first set at 20% of alpha: decided at the first look.
  EXPECT_EQ(d.versions[0].decision.decision, Decision::Keep);
  EXPECT_FALSE(d.versions[0].decision.confirmed);
  // v2 (no change) goes to the pooled look: both sets, 78 kept rounds, 80% of alpha.
  EXPECT_EQ(d.versions[1].decision.decision, Decision::Inconclusive);
  EXPECT_TRUE(d.versions[1].decision.confirmed);
  EXPECT_EQ(d.versions[1].decision.rounds, 78u);
  EXPECT_NEAR(d.versions[1].decision.confidence, 1 - 0.01 * (1 - kFirstLookShare), 1e-12);
  EXPECT_NE(decision_text(d.versions[1].decision).find("over 78 rounds"), std::string::npos);
  rows[0].status = VersionStatus::Fail;
  DecisionReport none = decide_versions(rows, {-1, 0, 1}, a, nullptr, DecisionRule{});
  EXPECT_FALSE(none.not_run.empty());
  EXPECT_TRUE(decision_json(none)["not_run"].is_string());
  EXPECT_NE(decision_markdown(none).find("No decision"), std::string::npos);
}

TEST(DecisionReport, AFailedAACheckDecidesNothing) {
  RoundsResult r = rounds_of(0.05, -0.05, 60);
  for (auto& round : r.rounds) round.ms[3] *= 1.03;  // the A/A arm reads 3% slower than the baseline
  std::vector<VersionRow> rows = {row("v0"), row("v1"), row("v2"), row("v3", VersionStatus::Fail)};
  DecisionReport d = decide_versions(rows, {0, 1, 2, -1}, r, nullptr, DecisionRule{});
  EXPECT_TRUE(d.aa_failed);
  EXPECT_EQ(d.versions[0].decision.decision, Decision::Inconclusive);
  EXPECT_EQ(d.versions[1].decision.decision, Decision::Inconclusive);
  EXPECT_EQ(d.versions[2].decision.decision, Decision::Revert);  // not correct: whatever the rounds say
  EXPECT_EQ(decision_json(d)["aa_check"], "failed");
  EXPECT_NE(decision_markdown(d).find("A/A check FAILED"), std::string::npos);
  // The terminal lines carry the note that "(see the note)" points to, with the A/A interval.
  const std::string lines = decision_text_lines(d);
  EXPECT_NE(lines.find("decision v1: inconclusive: no decision: the A/A check failed (see the note)"),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find("decision note: the A/A check failed: the baseline differed from its own second instance "
                       "(interval"),
            std::string::npos)
      << lines;
}

TEST(DecisionReport, CompareOfOneRunPerSideDecidesNothingFromTheTimes) {
  auto input = [](const std::string& label, double ms, uint64_t seed,
                  const std::string& source = "gpu__time_duration") {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 0.005);
    CompareInput in;
    in.label = label;
    VersionRow r = row("v0");
    for (int i = 0; i < 100; ++i) r.time_samples_ms.push_back(ms * std::exp(noise(rng)));
    r.time_ms = r.kernel_ms = ms;
    r.call_ms = 1.1 * ms;
    r.kernel_source = source;
    r.sm_clock_mhz = 1980;
    in.rows.push_back(r);
    return in;
  };
  CompareResult r = compare_inputs({input("A", 1.0, 1), input("B", 1.10, 2), input("C", 1.005, 3)}, 5.0);
  ASSERT_EQ(r.versions.size(), 1u);
  for (size_t i : {1u, 2u}) {
    ASSERT_TRUE(r.versions[0].decision[i].has_value());
    EXPECT_EQ(r.versions[0].decision[i]->decision, Decision::Inconclusive);
    EXPECT_NE(r.versions[0].decision[i]->reason.find("runs of one kernel on this machine differ by up to 2%"),
              std::string::npos);
    EXPECT_EQ(r.versions[0].decision[i]->reason.find("more samples"), std::string::npos);
    EXPECT_FALSE(r.versions[0].decision[i]->more_rounds.has_value());
    EXPECT_EQ(r.versions[0].cmp[i].change, Change::Inconclusive);  // the vs-first column too
  }
  EXPECT_NEAR(*r.versions[0].decision[1]->ratio, 1 / 1.10, 1e-9);
  EXPECT_TRUE(r.failures.empty());  // the times alone fail no gate: the pytest gate re-times
  // A version no longer correct still fails the gate.
  auto broken = input("B", 1.0, 2);
  broken.rows[0].status = VersionStatus::Fail;
  CompareResult f = compare_inputs({input("A", 1.0, 1), broken}, 5.0);
  ASSERT_EQ(f.failures.size(), 1u);
  EXPECT_EQ(f.versions[0].decision[1]->decision, Decision::Revert);
  // Another time basis or clock state: said.
  auto calls = input("B", 1.0, 2);
  calls.rows[0].kernel_ms = 0.5;  // time_ms (1.0) is the call time
  calls.rows[0].call_ms = 1.0;
  calls.rows[0].sm_clock_mhz = 1755;
  CompareResult w = compare_inputs({input("A", 1.0, 1), calls}, std::nullopt);
  std::string all;
  for (const auto& x : w.warnings) all += x + "\n";
  EXPECT_NE(all.find("timed call time (CUDA events), the baseline kernel time (gpu__time_duration)"), std::string::npos)
      << all;
  EXPECT_NE(all.find("another clock state"), std::string::npos) << all;
}

TEST(DecisionReport, RunOptionsCarryTheDecideSettings) {
  std::string dir = std::string(KPROF_EXAMPLES_DIR) + "/softmax_versions";
  RunCmd c = parse_run_words({dir + "/v0.cu", dir + "/v1.cu", "--ref", dir + "/ref.py", "--D=64", "--N=1024",
                              "--decide", "--rounds", "30", "--min-gain", "2.5", "--confirm", "--calls-per-round", "5",
                              "--decide-budget", "45"});
  RunRequest r = make_run_request(c);
  EXPECT_TRUE(r.decide.enabled);
  EXPECT_TRUE(r.decide.confirm);
  EXPECT_FALSE(r.decide.ncu);
  EXPECT_EQ(r.decide.rounds.rounds, 30);
  EXPECT_EQ(r.decide.rounds.calls_per_slot, 5);
  EXPECT_DOUBLE_EQ(r.decide.rounds.budget_s, 45);
  EXPECT_DOUBLE_EQ(r.decide.rule.min_gain, 0.025);
  EXPECT_FALSE(r.profile.run_ncu);     // timing only by default
  EXPECT_FALSE(r.decide.kernel_time);  // call time by default
  RunCmd with_ncu = parse_run_words({dir + "/v0.cu", "--ref", dir + "/ref.py", "--D=64", "--N=1024", "--decide",
                                     "--decide-ncu", "--decide-time", "kernel"});
  EXPECT_TRUE(make_run_request(with_ncu).profile.run_ncu);
  EXPECT_TRUE(make_run_request(with_ncu).decide.kernel_time);
  EXPECT_THROW(parse_run_words({dir + "/v0.cu", "--ref", dir + "/ref.py", "--decide", "--decide-time", "wall"}), Error);
  RunCmd plain = parse_run_words({dir + "/v0.cu", "--ref", dir + "/ref.py", "--D=64", "--N=1024"});
  EXPECT_FALSE(make_run_request(plain).decide.enabled);
  EXPECT_THROW(parse_run_words({dir + "/v0.cu", "--ref", dir + "/ref.py", "--rounds", "30"}), Error);  // needs --decide
  EXPECT_THROW(parse_run_words({dir + "/v0.cu", "--ref", dir + "/ref.py", "--decide", "--rounds", "3"}), Error);
  CLI::App app{"kprof"};
  RunCmd scaled;
  CLI::App* sub = app.add_subcommand("run", "");
  add_run_options(sub, scaled);
  scaled.decide = true;
  scaled.sweep = {"N=1Ki..4Ki"};
  EXPECT_THROW(check_scale_options(sub, scaled), Error);  // one process, one size
  scaled.decide = false;
  EXPECT_NO_THROW(check_scale_options(sub, scaled));
}
