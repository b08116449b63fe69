// `kprof analyze` end to end on the real planted-defect reports (tests/data/ncurep): the ranked
// findings with their gains on the console and in ncu_summary.md / analysis.json, ncu's own rule
// results beside them (REPORT.rules.json next to the CSV), the bound that a report alone cannot
// give, and roofline.svg.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/fs.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

std::string rep(const std::string& name) { return std::string(KPROF_TEST_DATA) + "/ncurep/" + name; }

}  // namespace

TEST(AnalyzeIssue16, PlantedBankConflictRanksFirstBesideNcusEstimate) {
  TempDir dir;
  ProcessResult r = run_kprof({"analyze", rep("bank_conflict.raw.csv"), "-o", dir.path(), "--json", "--no-roofline"});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  auto j = nlohmann::json::parse(r.out);
  const auto& v = j["kernels"][0]["verdict"];
  EXPECT_EQ(v["findings"][0]["id"], "bank-conflicts");
  EXPECT_NEAR(v["findings"][0]["gain_pct"].get<double>(), 29386203.0 / (1048576 + 33846747) * 82.2441, 0.05);
  EXPECT_EQ(v["findings"][0]["unit"], "L1/TEX");
  EXPECT_TRUE(v["findings"][0]["unit_busy_pct"].is_number());
  EXPECT_EQ(v["findings"][0]["agreement"].get<std::string>().rfind("differ", 0), 0u);
  EXPECT_FALSE(v["ncu_rules"].empty());
  EXPECT_TRUE(j["call"]["bound"].is_null());
  std::string md = read_file_or_empty(dir / "ncu_summary.md");
  EXPECT_NE(md.find("Findings, ranked by estimated gain"), std::string::npos);
  EXPECT_NE(md.find("Nsight Compute's own rule results"), std::string::npos);
  EXPECT_NE(md.find("Time bound and headroom"), std::string::npos);
  EXPECT_NE(md.find("leading stalls: mio_throttle"), std::string::npos);
}

TEST(AnalyzeIssue16, ConsoleVerdictListsTheTopFindingsWithGains) {
  TempDir dir;
  ProcessResult r = run_kprof({"analyze", rep("divergent.raw.csv"), "-o", dir.path(), "--no-roofline"});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_NE(r.out.find("1. Warp divergence (threads idle in executed instructions): est. gain 77.7%"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Threads per instruction low"), std::string::npos) << r.out;
}

TEST(AnalyzeIssue16, WithoutRulesBesideTheReportSaysWhy) {
  TempDir dir;
  ProcessResult r =
      run_kprof({"analyze", std::string(KPROF_TEST_DATA) + "/ncu/strided.raw.csv", "-o", dir.path(), "--no-roofline"});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  std::string md = read_file_or_empty(dir / "ncu_summary.md");
  EXPECT_NE(md.find("Not shown: a CSV export holds no rule results"), std::string::npos) << md;
}

TEST(AnalyzeIssue16, DrawsTheRooflineOrSaysWhyNot) {
  TempDir dir;
  ProcessResult r = run_kprof({"analyze", rep("cublas_gemm_4096.raw.csv"), "-o", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  if (r.err.find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << r.err;
  EXPECT_TRUE(path_exists(dir / "roofline.svg")) << r.err;
  EXPECT_TRUE(path_exists(dir / "roofline.png")) << r.err;
  EXPECT_NE(r.err.find("roofline.svg"), std::string::npos) << r.err;
}
