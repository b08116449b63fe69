// roofline.svg / .png (report/roofline_chart.hpp, python/plot.hpp) and the Markdown of the
// bound and the findings (report/findings_report.hpp), from the real H200 reports.
#include <gtest/gtest.h>

#include "stages/analysis/analyze.hpp"
#include "core/fs.hpp"
#include "report/findings_report.hpp"
#include "report/roofline_chart.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

NcuAnalysis load(const std::string& rel) {
  return analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel));
}

}  // namespace

TEST(RooflineSpec, KernelsWithFlopsArePointsOthersGoOnTheBandwidthChart) {
  NcuAnalysis gemm = load("ncurep/cublas_gemm_4096.raw.csv");
  NcuAnalysis copy = load("ncu/copy.raw.csv");
  ASSERT_TRUE(gemm.verdict.ceilings);
  std::vector<RooflineEntry> e = {{"gemm", &gemm.table.kernels[0], std::nullopt, std::nullopt},
                                  {"copy", &copy.table.kernels[0], std::nullopt, std::nullopt}};
  nlohmann::json spec = roofline_spec(e, *gemm.verdict.ceilings, "t");
  ASSERT_EQ(spec["points"].size(), 1u);
  EXPECT_EQ(spec["points"][0]["label"], "gemm");
  // 2 x 4096^3 tensor FLOPs in 180.6 us = 761 TFLOP/s; DRAM intensity = FLOPs / 176 MB.
  EXPECT_NEAR(spec["points"][0]["flop_per_s"].get<double>(), 1.374389e11 / 180.576e-6, 1e12);
  EXPECT_EQ(spec["points"][0]["levels"][0]["level"], "DRAM");
  EXPECT_EQ(spec["points"][0]["levels"][1]["level"], "L2");  // from lts__t_sectors.sum x 32
  ASSERT_EQ(spec["bandwidth_kernels"].size(), 1u);
  EXPECT_EQ(spec["bandwidth_kernels"][0]["label"], "copy");
  EXPECT_NEAR(spec["bandwidth_kernels"][0]["bytes_per_s"]["DRAM"].get<double>(), 515.25248e6 / 132.416e-6, 1e10);
  bool fp16_tensor = false;
  for (const auto& c : spec["compute_ceilings"]) fp16_tensor = fp16_tensor || c["name"] == "FP16 tensor";
  EXPECT_TRUE(fp16_tensor);
  EXPECT_EQ(spec["bandwidth_ceilings"][0]["name"], "DRAM (theoretical)");
}

TEST(RooflineSpec, TheBoundStarSitsAtTheAlgorithmsIntensity) {
  NcuAnalysis gemm = load("ncurep/cublas_gemm_4096.raw.csv");
  WorkModel w;
  w.flops = 2.0 * 4096 * 4096 * 4096;
  w.min_bytes = 3.0 * 4096 * 4096 * 2;
  TimeBound b = compute_bound(w, *gemm.verdict.ceilings, 180.576e-6, "ncu");
  nlohmann::json spec = roofline_spec({{"v", &gemm.table.kernels[0], w, b}}, *gemm.verdict.ceilings, "t");
  ASSERT_TRUE(spec["points"][0].contains("bound"));
  EXPECT_NEAR(spec["points"][0]["bound"]["intensity"].get<double>(), 4096.0 / 3.0, 1e-6);
}

TEST(RooflineChart, WrittenWithMatplotlibOrSkippedWithANote) {
  NcuAnalysis gemm = load("ncurep/cublas_gemm_4096.raw.csv");
  NcuAnalysis copy = load("ncu/copy.raw.csv");
  nlohmann::json spec = roofline_spec({{"gemm", &gemm.table.kernels[0], std::nullopt, std::nullopt},
                                       {"copy", &copy.table.kernels[0], std::nullopt, std::nullopt}},
                                      *gemm.verdict.ceilings, "test chart");
  TempDir dir;
  std::string note = write_roofline(dir.path(), spec);
  if (note.find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << note;
  ASSERT_EQ(note, "");
  std::string svg = read_file_or_empty(dir / "roofline.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_FALSE(read_file_or_empty(dir / "roofline.png").empty());
  EXPECT_FALSE(path_exists(dir / "roofline.svg.tmp"));
  EXPECT_NE(write_roofline(dir.path(), roofline_spec({}, *gemm.verdict.ceilings, "empty")).find("no kernel"),
            std::string::npos);
}

TEST(FindingsReport, MarkdownShowsFormulasNcuEstimatesAndTheMissingBound) {
  AnalysisContext ctx;
  std::string rep = std::string(KPROF_TEST_DATA) + "/ncurep/bank_conflict.raw.csv";
  ctx.rules = read_rule_results(rep, &ctx.rules_note);
  NcuAnalysis a = analyze_ncu_csv(read_file(rep), ctx);
  std::string md = findings_markdown(a.verdict.kernels[0], 3);
  EXPECT_NE(md.find("| 1 | Shared-memory bank conflicts | L1/TEX (82.2%) | 69.3%"), std::string::npos) << md;
  EXPECT_NE(md.find("Limiter: **L1/TEX** (82.2% busy"), std::string::npos) << md;
  EXPECT_NE(md.find("SharedMemoryConflicts \"Shared Load Bank Conflicts\" 75.8% (global); SharedMemoryConflicts "
                    "\"Shared Store Bank Conflicts\" 11.2% (global); UncoalescedSharedAccess 82.7% (global): differ"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Implementation efficiency"), std::string::npos);
  EXPECT_NE(md.find("MemoryL2Compression"), std::string::npos);  // ncu's estimate without a kprof finding
  EXPECT_NE(bound_markdown(a.verdict, 2).find("Not known"), std::string::npos);
  nlohmann::json j = findings_json(a.verdict.kernels[0]);
  EXPECT_EQ(j[0]["id"], "bank-conflicts");
  EXPECT_EQ(j[0]["rank"], 1);
}
