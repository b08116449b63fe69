// Charts drawn by worker processes (python/chart_pool.hpp) and the child process they run in
// (core/child_process.hpp).
#include <gtest/gtest.h>

#include <future>
#include <vector>

#include "core/child_process.hpp"
#include "core/fs.hpp"
#include "python/chart_pool.hpp"
#include "report/roofline_chart.hpp"
#include "stages/analysis/analyze.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// A spec with one point (a GEMM) and one bandwidth kernel (a copy), from the real H200 reports.
std::string real_spec() {
  NcuAnalysis gemm = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncurep/cublas_gemm_4096.raw.csv"));
  NcuAnalysis copy = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  return roofline_spec({{"gemm", &gemm.table.kernels[0], std::nullopt, std::nullopt},
                        {"copy", &copy.table.kernels[0], std::nullopt, std::nullopt}},
                       *gemm.verdict.ceilings, "pool chart")
      .dump();
}

}  // namespace

TEST(ChildProcess, SpeaksByLines) {
  ChildProcess c;
  ASSERT_TRUE(c.start({"sh", "-c", "while read l; do echo \"got $l\"; done"})) << c.error();
  ASSERT_TRUE(c.write_line("one"));
  ASSERT_TRUE(c.write_line("two"));
  EXPECT_EQ(c.read_line(10).value_or("?"), "got one");
  EXPECT_EQ(c.read_line(10).value_or("?"), "got two");
  EXPECT_FALSE(c.read_line(0.2).has_value());  // nothing more: a timeout, not an end
  EXPECT_FALSE(c.at_eof());
}

TEST(ChildProcess, AMissingProgramOrADeadChildIsAnAnswerNotACrash) {
  ChildProcess missing;
  EXPECT_FALSE(missing.start({"/nonexistent/kprof-no-such-program"}));
  EXPECT_NE(missing.error().find("cannot run"), std::string::npos) << missing.error();

  ChildProcess c;
  ASSERT_TRUE(c.start({"sh", "-c", "exit 0"}));
  EXPECT_FALSE(c.read_line(10).has_value());
  EXPECT_TRUE(c.at_eof());
  // Its stdin has no reader: the write fails (EPIPE) and the SIGPIPE does not end this process.
  bool ok = true;
  for (int i = 0; i < 100 && ok; ++i) ok = c.write_line(std::string(4096, 'x'));
  EXPECT_FALSE(ok);
}

TEST(ChartPool, WithoutWorkersAChartIsDrawnInThisProcess) {
  TempDir dir;
  ChartResult r = draw_chart(ChartKind::Roofline, real_spec(), dir / "a.svg", dir / "a.png");
  ASSERT_EQ(r.wait_for(std::chrono::seconds(0)), std::future_status::ready);  // drawn before returning
  if (r.get().find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << r.get();
  EXPECT_EQ(r.get(), "");
  EXPECT_TRUE(path_exists(dir / "a.svg"));
  EXPECT_EQ(charts_drawn_by_workers(), 0u);
}

TEST(ChartPool, WorkersDrawSeveralChartsAtOnceAndReportErrors) {
  {
    TempDir probe;  // skip where matplotlib is missing (the in-process answer says so)
    std::string why = render_chart(ChartKind::Roofline, real_spec(), probe / "p.svg", probe / "p.png");
    if (why.find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << why;
  }
  start_chart_workers(3);
  size_t before = charts_drawn_by_workers();
  TempDir dir;
  std::string spec = real_spec();
  std::vector<ChartResult> charts;
  for (int i = 0; i < 4; ++i) {
    std::string base = dir / ("c" + std::to_string(i));
    charts.push_back(draw_chart(ChartKind::Roofline, spec, base + ".svg", base + ".png"));
  }
  ChartResult bad = draw_chart(ChartKind::Roofline, "{}", dir / "bad.svg", dir / "bad.png");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(charts[i].get(), "") << i;
    std::string base = dir / ("c" + std::to_string(i));
    EXPECT_NE(read_file_or_empty(base + ".svg").find("<svg"), std::string::npos) << i;
    EXPECT_FALSE(read_file_or_empty(base + ".png").empty()) << i;
    EXPECT_FALSE(path_exists(base + ".svg.tmp")) << i;
    EXPECT_FALSE(path_exists(base + ".png.tmp")) << i;
  }
  EXPECT_NE(bad.get().find("the roofline chart could not be drawn: ValueError: nothing to draw"), std::string::npos)
      << bad.get();
  EXPECT_FALSE(path_exists(dir / "bad.svg"));
  EXPECT_EQ(charts_drawn_by_workers() - before, 4u);  // the bad one was answered by a worker too, not drawn
}

// A worker writes the PNG in a forked copy of itself beside the SVG: the same bytes as the chart
// drawn in this process, and a PNG the fork cannot write gets matplotlib's own error.
TEST(ChartPool, AWorkersForkedPngIsTheSameChartAndItsFailureIsReported) {
  TempDir dir;
  const std::string spec = real_spec();
  std::string why = render_chart(ChartKind::Roofline, spec, dir / "here.svg", dir / "here.png");
  if (why.find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << why;
  ASSERT_EQ(why, "");
  start_chart_workers(1);
  size_t before = charts_drawn_by_workers();
  EXPECT_EQ(draw_chart(ChartKind::Roofline, spec, dir / "w.svg", dir / "w.png").get(), "");
  EXPECT_EQ(charts_drawn_by_workers() - before, 1u);
  const std::string png = read_file_or_empty(dir / "w.png");
  EXPECT_GT(png.size(), 1000u);
  EXPECT_EQ(png, read_file_or_empty(dir / "here.png"));
  // The PNG's folder does not exist: the SVG is written, the PNG is not, and the answer says why.
  std::string err = draw_chart(ChartKind::Roofline, spec, dir / "x.svg", join_path(dir / "missing", "x.png")).get();
  EXPECT_NE(err.find("could not be drawn"), std::string::npos) << err;
  EXPECT_NE(err.find("missing"), std::string::npos) << err;
  EXPECT_FALSE(path_exists(dir / "missing"));
}

TEST(ChartPool, ARooflineJobWaitsForItsWorker) {
  {
    TempDir probe;
    std::string why = render_chart(ChartKind::Roofline, real_spec(), probe / "p.svg", probe / "p.png");
    if (why.find("matplotlib is not installed") != std::string::npos) GTEST_SKIP() << why;
  }
  start_chart_workers(1);
  size_t before = charts_drawn_by_workers();
  TempDir dir;
  RooflineJob job = start_roofline(dir.path(), nlohmann::json::parse(real_spec()));
  EXPECT_EQ(job.note(), "");
  EXPECT_EQ(job.note(), "");  // again: the same answer
  EXPECT_TRUE(path_exists(dir / "roofline.svg"));
  EXPECT_EQ(charts_drawn_by_workers() - before, 1u);
  EXPECT_EQ(RooflineJob::not_drawn("roofline not drawn: x").note(), "roofline not drawn: x");
}
