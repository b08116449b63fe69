// The ncu report writers: ncu_summary.md keeps the seed's layout (header table, sections by
// category, "## Bottleneck" with class, evidence, signals and next sections), ncu_details.md
// lists every column with its unit, and the JSON carries metrics with units and the verdict.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "stages/analysis/analyze.hpp"
#include "stages/analysis/classify.hpp"
#include "core/fs.hpp"
#include "stages/ncu/metrics.hpp"
#include "flows/report_files.hpp"
#include "report/ncu_report.hpp"

using namespace kprof;

namespace {

std::string fixture_text(const std::string& name) { return read_file(std::string(KPROF_TEST_DATA) + "/ncu/" + name); }

size_t pos(const std::string& text, const std::string& needle) {
  size_t p = text.find(needle);
  EXPECT_NE(p, std::string::npos) << "missing: " << needle;
  return p;
}

/// A timing as the profile flow passes it (the header renders it: typed, not pre-formatted).
const TimingResult& profile_like_timing() {
  static const TimingResult t = [] {
    TimingResult r;
    r.call.n = 50;
    r.call.median = 0.13;
    r.call_ms.assign(50, 0.13);
    return r;
  }();
  return t;
}

NcuReportHeader profile_like_header() {
  NcuReportHeader h;
  h.rows = {{"Kernel", "k_copy"},
            {"GPU", "NVIDIA H200"},
            {"Arch", "sm_90"},
            {"Dims", "N=67108864"},
            {"Execution time", "130 us (CUDA events, median of 50)"}};
  h.timing = &profile_like_timing();
  return h;
}

}  // namespace

TEST(NcuSummary, KeepsTheSeedLayoutInOrder) {
  NcuAnalysis a = analyze_ncu_csv(fixture_text("copy.raw.csv"));
  std::string md = render_ncu_summary(a.table, a.verdict, profile_like_header());
  size_t header = pos(md, "| Execution time | 130 us (CUDA events, median of 50) |");
  size_t timing = pos(md, "## Execution time");
  size_t sol = pos(md, "## Speed of Light");
  size_t memory = pos(md, "## Memory");
  size_t compute = pos(md, "## Compute");
  size_t occupancy = pos(md, "## Occupancy");
  size_t launch = pos(md, "## Launch");
  size_t sched = pos(md, "## Scheduler and warp stalls");
  size_t roof = pos(md, "## Roofline point");
  size_t bottleneck = pos(md, "## Bottleneck");
  EXPECT_LT(pos(md, "| Dims | N=67108864 |"), header);
  EXPECT_LT(header, timing);
  EXPECT_LT(timing, sol);
  EXPECT_LT(sol, memory);
  EXPECT_LT(memory, compute);
  EXPECT_LT(compute, occupancy);
  EXPECT_LT(occupancy, launch);
  EXPECT_LT(launch, sched);
  EXPECT_LT(sched, roof);
  EXPECT_LT(roof, bottleneck);
  EXPECT_LT(bottleneck, pos(md, "**Memory-Bound (DRAM).**"));
  EXPECT_LT(bottleneck, pos(md, "### Secondary signals"));
  EXPECT_LT(bottleneck, pos(md, "### Next sections of the ncu report to read"));
  pos(md, "1. Memory Workload Analysis");
  pos(md,
      "| Memory SOL (Memory Throughput) | 80.9% | gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed |");
  pos(md, "| L2 hit rate | 50.9% | lts__t_sector_hit_rate.pct |");
  pos(md, "| long_scoreboard | 272.9 | 96.7% |");
  pos(md, "| Stall Long Scoreboard high |");
}

TEST(NcuSummary, BasicExportSaysWhatItLacks) {
  NcuAnalysis a = analyze_ncu_csv(fixture_text("copy.basic-like.raw.csv"));
  std::string md = render_ncu_summary(a.table, a.verdict, header_from_report(a.table, a.verdict, "basic.csv"));
  pos(md, "| Eligible warps per scheduler per cycle | not collected | smsp__warps_eligible.avg.per_cycle_active |");
  pos(md, "| L1/TEX throughput | 29.4% | l1tex__throughput.avg.pct_of_peak_sustained_active |");
  pos(md, "### Not concluded (metrics missing from this report)");
  pos(md, "Catalog metrics this report lacks (");
  pos(md, "Warp stall reasons: not collected.");
}

TEST(NcuSummary, HeaderFromReportMarksTheExecutionTimeAsNcus) {
  NcuAnalysis a = analyze_ncu_csv(fixture_text("fma.raw.csv"));
  NcuReportHeader h = header_from_report(a.table, a.verdict, "fma.raw.csv");
  std::string md = render_ncu_summary(a.table, a.verdict, h);
  pos(md, "| GPU | NVIDIA H200 |");
  pos(md, "| Arch | sm_90 (CC 9.0) |");
  pos(md, "| Dims | not recorded in an ncu report |");
  pos(md, "| Execution time | 2.32 ms (ncu gpu__time_duration.sum of this launch, measured under the profiler");
}

TEST(NcuSummary, SeveralKernelsGetATableSectionsAndTheCallVerdict) {
  MetricTable t = parse_ncu_raw_csv(fixture_text("copy.raw.csv"));
  MetricTable fma = parse_ncu_raw_csv(fixture_text("fma.raw.csv"));
  fma.kernels[0].id = 1;
  t.kernels.push_back(fma.kernels[0]);
  CallVerdict call = classify_call(t);
  std::string md = render_ncu_summary(t, call, header_from_report(t, call, "two.csv"));
  size_t table = pos(md, "## Kernels");
  size_t k0 = pos(md, "## Kernel ID 0: k_copy");
  size_t k1 = pos(md, "## Kernel ID 1: k_fma");
  size_t last = md.rfind("## Bottleneck");
  EXPECT_LT(table, k0);
  EXPECT_LT(k0, k1);
  EXPECT_LT(k1, last);
  pos(md, "| 1 | k_fma(const float *, float *, int, int) | 2.32 ms | 94.6% | Compute-Bound |");
  pos(md,
      "The call is led by **k_fma(const float *, float *, int, int)** (ID 1, 94.6% of the GPU time): "
      "**Compute-Bound**");
  pos(md, "### Bottleneck");  // per kernel
}

TEST(NcuDetails, ListsEveryColumnWithItsUnitAndKprofValue) {
  NcuAnalysis a = analyze_ncu_csv(fixture_text("fma.raw.csv"));
  std::string md = render_ncu_details(a.table, header_from_report(a.table, a.verdict, "fma.raw.csv"));
  for (const auto& col : a.table.columns) EXPECT_NE(md.find("| " + col + " |"), std::string::npos) << col;
  pos(md, "| gpu__time_duration.sum | 2.323584 | ms | 2.32 ms |");
  pos(md, "| dram__bytes_write.sum | 620.800000 | Kbyte | 621 kB |");
  pos(md, "| FBSP.TriageCompute.dramc__throughput.avg.pct_of_peak_sustained_elapsed | n/a | % | n/a |");
}

TEST(NcuJson, CarriesMetricsWithUnitsVerdictAndTiming) {
  NcuAnalysis a = analyze_ncu_csv(fixture_text("strided.raw.csv"));
  nlohmann::json j = ncu_json(a.table, a.verdict, profile_like_header());
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "k_strided(const float *, float *, int, int)");
  EXPECT_EQ(k["metrics"][metric::kDuration]["unit"], "ns");
  EXPECT_NEAR(k["metrics"][metric::kDuration]["value"].get<double>(), 1177984.0, 1e-3);
  EXPECT_EQ(k["metrics"].size(), metric_catalog().size());
  EXPECT_EQ(k["verdict"]["class"], "Memory-Bound");
  EXPECT_EQ(k["verdict"]["limiter"], "DRAM");
  EXPECT_EQ(k["verdict"]["signals"][0]["fires"], "yes");
  // Numbers with units, the formatted text beside them (the coalescing row: bytes used per sector, %).
  EXPECT_TRUE(k["verdict"]["signals"][0]["value"].is_number()) << k["verdict"]["signals"][0].dump();
  EXPECT_EQ(k["verdict"]["signals"][0]["unit"], "%");
  EXPECT_NE(k["verdict"]["signals"][0]["text"].get<std::string>().find("bytes per sector used"), std::string::npos);
  EXPECT_FALSE(k["verdict"]["evidence"].empty());
  EXPECT_EQ(j["call"]["class"], "Memory-Bound");
  EXPECT_EQ(j["call"]["leading_id"], 0);
  EXPECT_DOUBLE_EQ(j["timing"]["call_time_ms"]["median"].get<double>(), 0.13);
  EXPECT_EQ(k["verdict"], verdict_json(a.verdict.kernels[0]));
}

TEST(NcuJson, MissingMetricsAreNull) {
  NcuAnalysis a = analyze_ncu_csv(fixture_text("copy.basic-like.raw.csv"));
  nlohmann::json j = ncu_json(a.table, a.verdict);
  EXPECT_TRUE(j["kernels"][0]["metrics"][metric::kEligibleWarps]["value"].is_null());
  EXPECT_EQ(j["kernels"][0]["metrics"][metric::kL1Pct]["read_from"],
            "l1tex__throughput.avg.pct_of_peak_sustained_active");
  EXPECT_FALSE(j.contains("timing"));
}

TEST(NcuReports, WritesBothFilesIntoANewFolder) {
  std::string dir = std::string(::testing::TempDir()) + "/kprof_ncu_report_" + std::to_string(::getpid()) + "/out";
  NcuAnalysis a = analyze_ncu_csv(fixture_text("tiny.raw.csv"));
  NcuReportFiles f = write_ncu_reports(dir, a.table, a.verdict, header_from_report(a.table, a.verdict, "tiny"));
  EXPECT_EQ(f.summary, dir + "/ncu_summary.md");
  EXPECT_NE(read_file(f.summary).find("**Latency-Bound"), std::string::npos);
  EXPECT_NE(read_file(f.details).find("| launch__waves_per_multiprocessor | 0.00 |"), std::string::npos);
}

TEST(VerdictText, NamesClassEvidenceFiringSignalsAndLeader) {
  MetricTable t = parse_ncu_raw_csv(fixture_text("strided.raw.csv"));
  MetricTable tiny = parse_ncu_raw_csv(fixture_text("tiny.raw.csv"));
  tiny.kernels[0].id = 1;
  t.kernels.push_back(tiny.kernels[0]);
  std::string text = verdict_text(classify_call(t));
  pos(text, "k_strided(const float *, float *, int, int) [ID 0] 1.18 ms: Memory-Bound (DRAM)");
  pos(text, "[yes] Memory SOL > 60%: 80.5%");
  pos(text, "! Global load efficiency < 95%");
  pos(text, "k_tiny(const float *, float *, int) [ID 1] 3.07 ms: Latency-Bound");
  pos(text, "call: led by k_tiny(const float *, float *, int) [ID 1] with 72.3% of the GPU time: Latency-Bound");
}

TEST(NcuSummary, ManyLaunchesDetailOnlyTheLongestButListAll) {
  MetricTable base = parse_ncu_raw_csv(fixture_text("copy.raw.csv"));
  MetricTable t;
  t.columns = base.columns;
  for (int i = 0; i < 15; ++i) {
    KernelMetrics k = base.kernels[0];
    k.id = i;
    k.set(metric::kDuration, 1000.0 * (i == 3 ? 100 : i + 1), "ns");  // ID 3 is the longest
    t.kernels.push_back(k);
  }
  CallVerdict call = classify_call(t);
  std::vector<size_t> shown = kernels_to_detail(call);
  ASSERT_EQ(shown.size(), kMaxDetailedKernels);
  EXPECT_NE(std::find(shown.begin(), shown.end(), size_t{3}), shown.end());
  EXPECT_EQ(std::find(shown.begin(), shown.end(), size_t{0}), shown.end());  // the shortest launches
  std::string md = render_ncu_summary(t, call, header_from_report(t, call, "many.csv"));
  size_t sections = 0;
  for (size_t p = md.find("## Kernel ID "); p != std::string::npos; p = md.find("## Kernel ID ", p + 1)) ++sections;
  EXPECT_EQ(sections, kMaxDetailedKernels);
  pos(md, "| 14 | k_copy(const float4 *, float4 *, unsigned long) | 15 us |");
  pos(md, "ncu_details.md and the JSON cover all 15.");
  EXPECT_NE(verdict_text(call).find("(5 more launches with less GPU time"), std::string::npos);
}
