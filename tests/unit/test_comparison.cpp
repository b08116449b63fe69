// kprof run's comparison: speedup against the first profiled version, "same (within noise)" when
// the difference of medians is at most the larger standard deviation, the fastest correct marked.
#include <gtest/gtest.h>

#include <random>

#include "core/error.hpp"
#include "fake_kernel.hpp"
#include "kernel/load.hpp"
#include "report/comparison.hpp"

using namespace kprof;

namespace {

VersionRow row(const std::string& name, bool correct, std::optional<double> ms, double sd) {
  VersionRow r;
  r.name = name;
  r.status = correct ? VersionStatus::Pass : VersionStatus::Fail;
  r.profiled = ms.has_value();
  r.time_ms = ms;
  r.spread_ms = sd;
  return r;
}

using testutil::FakeKernel;

}  // namespace

TEST(Comparison, SpeedupNoiseAndFastestCorrect) {
  std::vector<VersionRow> rows = {row("v0", true, 10.0, 0.2), row("v1", true, 9.9, 0.1),  // within noise
                                  row("v2", true, 5.0, 0.1), row("v3", false, std::nullopt, 0),
                                  row("v4", true, 12.0, 0.1)};
  auto c = compare_versions(rows);
  EXPECT_EQ(c[0].change, Change::Baseline);
  EXPECT_EQ(c[1].change, Change::Same);
  EXPECT_EQ(change_name(c[1].change), "same (within noise)");
  EXPECT_EQ(c[2].change, Change::Faster);
  EXPECT_DOUBLE_EQ(*c[2].speedup, 2.0);
  EXPECT_EQ(c[3].change, Change::NotComparable);
  EXPECT_EQ(c[4].change, Change::Slower);
  EXPECT_TRUE(c[2].fastest);
  EXPECT_FALSE(c[0].fastest || c[1].fastest || c[3].fastest || c[4].fastest);
}

TEST(Comparison, AFasterIncorrectVersionIsNotMarkedFastest) {
  std::vector<VersionRow> rows = {row("v0", true, 10.0, 0.1), row("v1", false, 1.0, 0.1)};
  auto c = compare_versions(rows);
  EXPECT_TRUE(c[0].fastest);
  EXPECT_FALSE(c[1].fastest);
  auto md = comparison_markdown(rows, c, {{"GPU", "test"}}, "call time");
  EXPECT_NE(md.find("**v0** (fastest)"), std::string::npos) << md;
}

/// `n` per-call times around `mean` ms with standard deviation `sd` (a seeded normal sample).
std::vector<double> samples(double mean, double sd, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, sd);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Comparison, MediansSixStandardErrorsApartAreRankedNotTied) {
  // The recorded H200 run: v2 13.3 us +- 0.261, softmax 13.5 us +- 0.220 over 100 calls each. The
  // medians are about 6 standard errors apart: softmax is slower, not "as fast within noise" (the
  // old rule compared the gap with one call's spread and called them tied).
  std::vector<VersionRow> rows = {row("v0", true, 0.623, 0.00174), row("v2", true, 0.0133, 0.000261),
                                  row("softmax", true, 0.0135, 0.000220), row("v1", true, 0.0164, 0.000102),
                                  row("bad", false, std::nullopt, 0)};
  rows[0].time_samples_ms = samples(0.623, 0.00174, 100, 1);
  rows[1].time_samples_ms = samples(0.0133, 0.000261, 100, 2);
  rows[2].time_samples_ms = samples(0.0135, 0.000220, 100, 3);
  rows[3].time_samples_ms = samples(0.0164, 0.000102, 100, 4);
  auto c = compare_versions(rows);
  EXPECT_TRUE(c[1].fastest);
  ASSERT_TRUE(c[2].verdict_vs_fastest.has_value());
  EXPECT_EQ(c[2].verdict_vs_fastest->call, NoiseCall::Slower);
  EXPECT_FALSE(c[2].tied_with_fastest);
  EXPECT_FALSE(c[3].tied_with_fastest);
  EXPECT_EQ(c[2].change, Change::Faster);  // against v0, 46x
  auto md = comparison_markdown(rows, c, {{"GPU", "test"}}, "kernel time");
  EXPECT_EQ(md.find("within noise of it"), std::string::npos) << md;
  auto j = comparison_json(rows, c, {{"GPU", "test"}}, "kernel time");
  EXPECT_EQ(j["versions"][2]["comparison"]["verdict_vs_fastest"]["call"].get<std::string>(), "slower");
  EXPECT_LT(j["versions"][2]["comparison"]["verdict_vs_fastest"]["ci_high"].get<double>(), 1.0);
}

TEST(Comparison, OverlappingSamplesAreTiedWithTheFastestOrInconclusive) {
  // Two versions drawn from the same distribution: the interval straddles 1.
  std::vector<VersionRow> rows = {row("a", true, 0.0133, 0.000261), row("b", true, 0.0133, 0.000261)};
  rows[0].time_samples_ms = samples(0.0133, 0.000261, 100, 7);
  rows[1].time_samples_ms = samples(0.0133, 0.000261, 100, 8);
  rows[0].time_ms = 0.01329;
  rows[1].time_ms = 0.01331;
  auto c = compare_versions(rows);
  ASSERT_TRUE(c[1].verdict.has_value());
  EXPECT_TRUE(c[1].verdict->call == NoiseCall::Same || c[1].verdict->call == NoiseCall::Inconclusive)
      << noise_verdict_text(*c[1].verdict);
  EXPECT_TRUE(c[1].tied_with_fastest || c[0].tied_with_fastest);
  auto md = comparison_markdown(rows, c, {{"GPU", "test"}}, "kernel time");
  EXPECT_NE(md.find("within noise of it"), std::string::npos) << md;
}

TEST(Comparison, AnUndecidedGapSaysHowManyMoreSamples) {
  // 1.2% apart with a 5% spread over 10 calls each: neither ranked nor the same.
  std::vector<VersionRow> rows = {row("a", true, 1.0, 0.05), row("b", true, 0.988, 0.05)};
  rows[0].time_samples_ms = samples(1.0, 0.05, 10, 11);
  rows[1].time_samples_ms = samples(0.988, 0.05, 10, 12);
  auto c = compare_versions(rows);
  ASSERT_TRUE(c[1].verdict.has_value());
  EXPECT_EQ(c[1].change, Change::Inconclusive) << noise_verdict_text(*c[1].verdict);
  ASSERT_TRUE(c[1].verdict->more_samples.has_value());
  EXPECT_GT(*c[1].verdict->more_samples, 10u);
  auto md = comparison_markdown(rows, c, {{"GPU", "test"}}, "kernel time");
  EXPECT_NE(md.find("inconclusive (about "), std::string::npos) << md;
}

TEST(Comparison, NoTieLineWhenTheFastestStandsAlone) {
  std::vector<VersionRow> rows = {row("v0", true, 10.0, 0.1), row("v1", true, 5.0, 0.1)};
  auto md = comparison_markdown(rows, compare_versions(rows), {{"GPU", "test"}}, "call time");
  EXPECT_NE(md.find("Fastest correct version: v1.\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("within noise of it"), std::string::npos);
}

TEST(Comparison, RowNotesAreListedUnderTheTable) {
  std::vector<VersionRow> rows = {row("v0", true, 10.0, 0.1), row("v1", true, 5.0, 0.1)};
  rows[1].note = "its buffers differ from the first version's";
  auto c = compare_versions(rows);
  auto md = comparison_markdown(rows, c, {{"GPU", "test"}}, "call time");
  EXPECT_NE(md.find("Notes:\n\n- v1: its buffers differ from the first version's\n"), std::string::npos) << md;
  auto j = comparison_json(rows, c, {{"GPU", "test"}}, "call time");
  EXPECT_TRUE(j["versions"][0]["note"].is_null());
  EXPECT_EQ(j["versions"][1]["note"].get<std::string>(), "its buffers differ from the first version's");
}

TEST(Comparison, PercentOfBoundColumnForEveryVersion) {
  std::vector<VersionRow> rows = {row("v0", true, 0.30, 0.01), row("v1", true, 0.24, 0.01)};
  rows[0].pct_of_bound = 62.4;
  rows[0].max_speedup = 1.6;
  rows[0].top_finding = "Uncoalesced global loads";
  rows[0].top_finding_gain_pct = 35.0;
  rows[1].pct_of_bound = 79.4;
  rows[1].max_speedup = 1.26;
  auto cmp = compare_versions(rows);
  std::string md = comparison_markdown(rows, cmp, {}, "kernel time");
  EXPECT_NE(md.find("| % of bound |"), std::string::npos) << md;
  EXPECT_NE(md.find("62.4% (at most 1.60x faster)"), std::string::npos) << md;
  EXPECT_NE(md.find("79.4% (at most 1.26x faster)"), std::string::npos) << md;
  EXPECT_NE(md.find("Uncoalesced global loads (35.0%)"), std::string::npos) << md;
  auto j = comparison_json(rows, cmp, {}, "kernel time");
  EXPECT_DOUBLE_EQ(j["versions"][1]["pct_of_bound"].get<double>(), 79.4);
  rows[1].pct_of_bound.reset();
  EXPECT_NE(comparison_markdown(rows, compare_versions(rows), {}, "k").find("| n/a |"), std::string::npos);
}

TEST(Comparison, TheCrossRunFloorWidensTheNoise) {
  // 10.0 +- 0.05 against 10.15 +- 0.05: beyond the within-run noise (0.05), within the cross-run
  // noise (0.05 + 2% of 10.0 = 0.25).
  std::vector<VersionRow> rows = {row("a", true, 10.0, 0.05), row("b", true, 10.15, 0.05)};
  EXPECT_EQ(compare_versions(rows)[1].change, Change::Slower);
  auto c = compare_versions(rows, NoiseRule{kCrossRunNoiseFloor});
  EXPECT_EQ(c[1].change, Change::Same);
  EXPECT_NEAR(*c[1].noise_ms, 0.25, 1e-12);
}

TEST(Comparison, StatusAndClassRenderFromTypedValues) {
  VersionRow r = row("v", false, std::nullopt, 0);
  r.status_reason = "C: 3 of 1024 elements differ";
  EXPECT_EQ(correctness_text(r), "FAIL: C: 3 of 1024 elements differ");
  EXPECT_EQ(correctness_word(r), "FAIL");
  EXPECT_EQ(class_text(r), "not profiled (correctness failed)");
  r.status = VersionStatus::LoadError;
  EXPECT_EQ(correctness_text(r), "ERROR (load): C: 3 of 1024 elements differ");
  EXPECT_EQ(correctness_word(r), "ERROR");
  EXPECT_EQ(class_text(r), "not profiled (load failed)");
  r.status = VersionStatus::Pass;
  r.profile = ProfileStatus::Classified;
  r.cls = Bottleneck::MemoryBound;
  EXPECT_EQ(class_text(r), "Memory-Bound");
  r.leading_stall = "long_scoreboard";
  r.leading_stall_pct = 61.6;
  EXPECT_EQ(leading_stall_text(r), "long_scoreboard (62%)");
}

TEST(Comparison, RowsRoundTripThroughJson) {
  VersionRow r = row("v1", true, 0.25, 0.01);
  r.time_samples_ms = {0.24, 0.25, 0.26};
  r.profile = ProfileStatus::Classified;
  r.cls = Bottleneck::LatencyBound;
  r.sm_sol = 12.5;
  r.dram_bytes = 8.4e6;
  r.top_finding = "Bank conflicts";
  r.top_finding_gain_pct = 40;
  nlohmann::json j = r;
  EXPECT_EQ(j["status"], "pass");
  EXPECT_EQ(j["class"], "Latency-Bound");
  EXPECT_DOUBLE_EQ(j["dram_bytes"].get<double>(), 8.4e6);
  VersionRow back = j.get<VersionRow>();
  EXPECT_EQ(back.status, VersionStatus::Pass);
  EXPECT_EQ(back.cls, Bottleneck::LatencyBound);
  EXPECT_EQ(back.time_samples_ms, r.time_samples_ms);
  EXPECT_EQ(back.top_finding, "Bank conflicts");
  EXPECT_DOUBLE_EQ(*back.top_finding_gain_pct, 40);
  j["status"] = "PASS";
  EXPECT_THROW(j.get<VersionRow>(), Error);
}

TEST(KernelHeader, ReferenceRowFollowsTheSignature) {
  FakeKernel k;
  KernelSpec s;
  s.kernel = "k.cu";
  auto rows = kernel_header_rows(s, k, "ref.py");
  ASSERT_GT(rows.size(), 4u);
  EXPECT_EQ(rows[2].first, "Signature");
  EXPECT_EQ(rows[3].first, "Reference");
  EXPECT_EQ(rows[3].second, "ref.py");
  auto without = kernel_header_rows(s, k);
  EXPECT_EQ(without.size() + 1, rows.size());
}
