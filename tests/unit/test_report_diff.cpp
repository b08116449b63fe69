// kprof compare over Nsight Compute reports (stages/results/report_diff, flows/compare_reports) on the
// committed H200 SGEMM progression (tests/data/gemmprog, one launch per export): kernels paired by
// name and launch order (the n-th launch of a name with the n-th launch of that name, then renamed
// launches in launch order), the time ratio from ncu's gpu__time_duration of each side, the
// one-sample note in every rendering, and --fail-if-slower refused with reports (exit 2).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "flows/compare_reports.hpp"
#include "report/report_diff_report.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/results/report_diff.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;

namespace {

namespace fs = std::filesystem;

std::string gemm_csv(int v) {
  return std::string(KPROF_TEST_DATA) + "/gemmprog/gemm_v" + std::to_string(v) + ".raw.csv";
}

NcuAnalysis gemm(int v) { return analyze_ncu_csv(read_file(gemm_csv(v))); }

/// ncu's gpu__time_duration.sum of the export's only launch, ns, read from the table itself.
double gpu_time_ns(const NcuAnalysis& a) { return *a.table.kernels.at(0).number(metric::kDuration); }

/// An analysis holding the launches `picks` (analysis, launch index) in that order, with IDs 0, 1, ...
/// as one report holding several launches would number them.
NcuAnalysis launches(const std::vector<std::pair<const NcuAnalysis*, size_t>>& picks) {
  NcuAnalysis out;
  int id = 0;
  for (const auto& [a, i] : picks) {
    out.table.kernels.push_back(a->table.kernels.at(i));
    out.table.kernels.back().id = id++;
    out.verdict.kernels.push_back(a->verdict.kernels.at(i));
  }
  out.table.columns = picks.at(0).first->table.columns;
  return out;
}

std::string fresh_dir(const std::string& name) {
  std::string d = (fs::temp_directory_path() / ("kprof_rdiff_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(ReportDiff, SameKernelNamePairsByNameWithRatioOneAndNothingMoved) {
  NcuAnalysis v4 = gemm(4);
  ASSERT_EQ(v4.table.kernels.size(), 1u);
  ReportDiff d = diff_reports("a", v4, "b", v4);
  ASSERT_EQ(d.pairs.size(), 1u);
  const KernelPairDiff& p = d.pairs[0];
  EXPECT_EQ(p.name, "sgemm_v4_blocktile2d");
  EXPECT_EQ(p.after_name, p.name);
  EXPECT_FALSE(p.by_order);
  ASSERT_TRUE(p.time_ratio.has_value());
  EXPECT_DOUBLE_EQ(*p.time_ratio, 1.0);
  EXPECT_EQ(p.before.cls, p.after.cls);
  EXPECT_TRUE(p.findings_gone.empty());
  EXPECT_TRUE(p.findings_appeared.empty());
  EXPECT_TRUE(p.moved.empty());  // equal values are not a move
  EXPECT_TRUE(d.only_before.empty());
  EXPECT_TRUE(d.only_after.empty());
}

TEST(ReportDiff, RenamedKernelsPairInLaunchOrderWithTheMeasuredRatio) {
  NcuAnalysis v4 = gemm(4), v5 = gemm(5);
  ReportDiff d = diff_reports("gemm_v4", v4, "gemm_v5", v5);
  ASSERT_EQ(d.pairs.size(), 1u);
  const KernelPairDiff& p = d.pairs[0];
  EXPECT_TRUE(p.by_order);  // sgemm_v4_blocktile2d -> sgemm_v5_vectorized: names differ
  EXPECT_EQ(p.name, "sgemm_v4_blocktile2d");
  EXPECT_EQ(p.after_name, "sgemm_v5_vectorized");
  // 3976000 ns / 6280256 ns in the committed exports: v5 about 1.58x faster.
  ASSERT_TRUE(p.time_ratio.has_value());
  EXPECT_DOUBLE_EQ(*p.time_ratio, gpu_time_ns(v5) / gpu_time_ns(v4));
  EXPECT_NEAR(*p.time_ratio, 3976000.0 / 6280256.0, 1e-9);
  EXPECT_EQ(p.before.gpu_time_ns, gpu_time_ns(v4));
  EXPECT_EQ(p.before.cls, bottleneck_name(v4.verdict.kernels[0].cls));
  EXPECT_EQ(p.after.cls, bottleneck_name(v5.verdict.kernels[0].cls));
  EXPECT_TRUE(p.before.sm_sol.has_value());
  EXPECT_FALSE(p.before.sm_unit.empty());
  EXPECT_FALSE(p.before.mem_unit.empty());
  // The metrics that moved most: at most kMovedMetrics, largest |log ratio| first, change_pct consistent.
  ASSERT_FALSE(p.moved.empty());
  EXPECT_LE(p.moved.size(), kMovedMetrics);
  for (size_t i = 0; i < p.moved.size(); ++i) {
    const MetricMove& m = p.moved[i];
    EXPECT_NEAR(m.change_pct, 100.0 * (m.after / m.before - 1), 1e-9) << m.metric;
    if (i > 0)
      EXPECT_GE(std::abs(std::log(p.moved[i - 1].after / p.moved[i - 1].before)),
                std::abs(std::log(m.after / m.before)))
          << m.metric;
  }
}

TEST(ReportDiff, NthLaunchOfANamePairsWithTheNthLaunchOfThatName) {
  NcuAnalysis v4 = gemm(4), v5 = gemm(5), v3 = gemm(3);
  // before: v4 (ID 0), v4 (ID 1), v3 (ID 2); after: v5 (ID 0), v4 (ID 1), v4 (ID 2).
  NcuAnalysis before = launches({{&v4, 0}, {&v4, 0}, {&v3, 0}});
  NcuAnalysis after = launches({{&v5, 0}, {&v4, 0}, {&v4, 0}});
  ReportDiff d = diff_reports("before", before, "after", after);
  ASSERT_EQ(d.pairs.size(), 3u);
  // By name first, in the baseline's launch order: 1st v4 with 1st v4, 2nd with 2nd.
  EXPECT_FALSE(d.pairs[0].by_order);
  EXPECT_EQ(d.pairs[0].occurrence, 0);
  EXPECT_EQ(d.pairs[0].before.id, 0);
  EXPECT_EQ(d.pairs[0].after.id, 1);
  EXPECT_FALSE(d.pairs[1].by_order);
  EXPECT_EQ(d.pairs[1].occurrence, 1);
  EXPECT_EQ(d.pairs[1].before.id, 1);
  EXPECT_EQ(d.pairs[1].after.id, 2);
  // Left over on both sides (v3 before, v5 after): paired in launch order, and said so.
  EXPECT_TRUE(d.pairs[2].by_order);
  EXPECT_EQ(d.pairs[2].name, "sgemm_v3_blocktile1d");
  EXPECT_EQ(d.pairs[2].after_name, "sgemm_v5_vectorized");
  EXPECT_EQ(d.pairs[2].before.id, 2);
  EXPECT_EQ(d.pairs[2].after.id, 0);
  EXPECT_TRUE(d.only_before.empty());
  EXPECT_TRUE(d.only_after.empty());

  // With v3 launched after too, every baseline launch pairs by name (names before launch order),
  // and the launch left over (v5, ID 0) is listed as unpaired, with its ID.
  NcuAnalysis more = launches({{&v5, 0}, {&v4, 0}, {&v4, 0}, {&v3, 0}});
  ReportDiff m = diff_reports("before", before, "more", more);
  ASSERT_EQ(m.pairs.size(), 3u);
  for (const auto& p : m.pairs) EXPECT_FALSE(p.by_order) << p.name;
  EXPECT_EQ(m.pairs[2].after.id, 3);
  ASSERT_EQ(m.only_after.size(), 1u);
  EXPECT_EQ(m.only_after[0], "sgemm_v5_vectorized [ID 0]");
  EXPECT_TRUE(m.only_before.empty());
}

TEST(ReportDiff, EveryRenderingSaysARatioIsOneSample) {
  NcuAnalysis v4 = gemm(4), v5 = gemm(5);
  std::vector<ReportDiff> diffs = {diff_reports("gemm_v4", v4, "gemm_v5", v5)};
  std::vector<LabelledReport> reports = {{"gemm_v4", &v4}, {"gemm_v5", &v5}};
  nlohmann::json j = report_diff_json(reports, diffs);
  EXPECT_EQ(j["kind"], "ncu_reports");
  EXPECT_EQ(j["note"], kOneSampleNote);
  EXPECT_EQ(j["samples_per_side"], 1);
  const auto& pair = j["diffs"][0]["pairs"][0];
  EXPECT_EQ(pair["paired_by"], "launch order");
  EXPECT_DOUBLE_EQ(pair["time_ratio"].get<double>(), *diffs[0].pairs[0].time_ratio);
  EXPECT_FALSE(j.contains("decision"));  // one sample: no keep/revert
  EXPECT_FALSE(j.contains("gate"));
  EXPECT_NE(report_diff_markdown(diffs).find(kOneSampleNote), std::string::npos);
  EXPECT_NE(report_diff_text(diffs).find("one sample"), std::string::npos) << report_diff_text(diffs);
}

TEST(ReportDiff, FailIfSlowerIsRefusedWithReports) {
  std::string out = fresh_dir("gate");
  // The flow refuses before reading anything: a usage error (exit 2) with a hint.
  try {
    run_compare_reports({gemm_csv(4), gemm_csv(5)}, 5.0, out, false);
    FAIL() << "--fail-if-slower with reports was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("one sample"), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
  EXPECT_FALSE(path_exists(join_path(out, "comparison.json")));
  // The same through the command line: exit 2, nothing written; without the gate, exit 0.
  auto gated = testutil::run_kprof({"compare", gemm_csv(4), gemm_csv(5), "--fail-if-slower", "5", "-o", out});
  EXPECT_EQ(gated.exit_code, 2) << gated.combined();
  EXPECT_FALSE(path_exists(join_path(out, "comparison.json")));
  auto plain = testutil::run_kprof({"compare", gemm_csv(4), gemm_csv(5), "-o", out, "--no-html"});
  EXPECT_EQ(plain.exit_code, 0) << plain.combined();
  auto j = nlohmann::json::parse(read_file(join_path(out, "comparison.json")));
  EXPECT_EQ(j["kind"], "ncu_reports");
  EXPECT_FALSE(j.contains("report_html"));
  EXPECT_FALSE(path_exists(join_path(out, "report.html")));
}
