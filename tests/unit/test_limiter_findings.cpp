// Findings from the limiter (docs/CLASSIFICATION.md "Findings from the limiter"): the units and
// the limiter read from real H200 reports, the gain at a unit and its cap, LSU never a compute
// pipe, Occupancy-Bound only when latency hiding failed, and latency advice only when no unit is
// busy. Real data: tests/data/ncurep (planted defects, cuBLAS), tests/data/ncu (copy, fma).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/fs.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/classify.hpp"
#include "stages/analysis/limiter.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;
namespace m = kprof::metric;

namespace {

KernelMetrics report_kernel(const std::string& rel) {
  return parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel)).kernels.at(0);
}

Verdict analyzed(const std::string& rel) {
  NcuAnalysis a = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel));
  return a.verdict.kernels.at(static_cast<size_t>(a.verdict.leading));
}

const Finding* find(const Verdict& v, const std::string& id) {
  for (const auto& f : v.findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

TEST(Limiter, UnitsOfRealReportsBusiestFirst) {
  // bank_conflict: L1/TEX 82.2% (l1tex__throughput elapsed) is the busiest unit.
  KernelMetrics b = report_kernel("ncurep/bank_conflict.raw.csv");
  auto units = unit_loads(b);
  ASSERT_GE(units.size(), 6u);
  EXPECT_EQ(units.front().name, "L1/TEX");
  EXPECT_DOUBLE_EQ(units.front().pct, *b.number(m::kL1Pct));
  for (size_t i = 1; i < units.size(); ++i) EXPECT_GE(units[i - 1].pct, units[i].pct);
  // The cuBLAS wgmma GEMM: the tensor pipe, a compute pipe.
  auto lead = limiting_unit(report_kernel("ncurep/cublas_gemm_4096.raw.csv"));
  ASSERT_TRUE(lead);
  EXPECT_EQ(lead->name, "Tensor pipe");
  EXPECT_TRUE(lead->compute);
  // The uncoalesced gather: L2 (91.3%) limits, not L1/TEX (56.4%).
  EXPECT_EQ(limiting_unit(report_kernel("ncurep/uncoalesced_gather.raw.csv"))->name, "L2");
  // The copy stream: DRAM or L2 (L2 carries the DRAM traffic), a memory unit either way.
  auto copy = limiting_unit(report_kernel("ncu/copy.raw.csv"));
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->compute);
}

TEST(Limiter, GainAtAUnitIsShareTimesBusyCappedByTheBusiestUnitLeftAlone) {
  KernelMetrics k;
  k.set(m::kL1Pct, 90, "%");
  k.set(m::kL2Pct, 50, "%");
  k.set(m::kPipeFma, 40, "%");
  k.set(m::kIssueActive, 30, "%");
  // Removing 50% of L1/TEX's work at 90% busy: 45%; the FMA pipe (40%) caps at 60%: no cap.
  auto g = gain_at_unit(k, "L1/TEX", 0.5, {"L1/TEX", "L2"});
  ASSERT_TRUE(g);
  EXPECT_NEAR(g->gain_pct, 45.0, 1e-9);
  EXPECT_FALSE(g->capped);
  // Removing all of it: 90%, capped at 100 - 40 (FMA pipe) = 60%.
  g = gain_at_unit(k, "L1/TEX", 1.0, {"L1/TEX", "L2"});
  EXPECT_NEAR(g->gain_pct, 60.0, 1e-9);
  ASSERT_TRUE(g->capped);
  EXPECT_EQ(g->capped->name, "FMA pipe");
  // When L2 is not relieved, L2 at 50% caps instead.
  g = gain_at_unit(k, "L1/TEX", 1.0, {"L1/TEX"});
  EXPECT_NEAR(g->gain_pct, 50.0, 1e-9);
  EXPECT_EQ(g->capped->name, "L2");
  EXPECT_FALSE(gain_at_unit(k, "DRAM", 0.5, {}));  // not collected
}

TEST(Limiter, LsuIsMemoryInstructionIssueNeverAComputePipe) {
  KernelMetrics k;
  k.set(m::kSmSol, 85, "%");
  k.set(m::kMemSol, 40, "%");
  k.set(m::kDramPct, 10, "%");
  k.set(m::kL1Pct, 40, "%");
  k.set(m::kL2Pct, 20, "%");
  k.set(m::kPipeLsu, 85, "%");
  k.set(m::kPipeFma, 20, "%");
  k.set(m::kPipeAlu, 30, "%");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound) << v.summary;
  EXPECT_EQ(v.limiter, "LSU/MIO issue");
  EXPECT_EQ(v.summary.find("Compute-Bound on the LSU"), std::string::npos);
  auto lead = limiting_unit(k);
  EXPECT_EQ(lead->name, "LSU/MIO issue");
  EXPECT_FALSE(lead->compute);
  // With a math pipe busier than LSU it stays Compute-Bound on that pipe.
  k.set(m::kPipeFma, 90, "%");
  v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::ComputeBound);
  EXPECT_EQ(v.limiter, "FMA pipe");
}

TEST(Limiter, OccupancyBoundOnlyWhenLatencyHidingFailed) {
  KernelMetrics k;
  k.set(m::kSmSol, 30, "%");
  k.set(m::kMemSol, 45, "%");
  k.set(m::kDramPct, 45, "%");
  k.set(m::kL1Pct, 20, "%");
  k.set(m::kL2Pct, 30, "%");
  k.set(m::kTheoreticalOcc, 25, "%");
  k.set(m::kAchievedOcc, 24, "%");
  k.set(m::kLimitRegisters, 2, "block");
  k.set(m::kLimitShared, 8, "block");
  k.set(m::kLimitWarps, 8, "block");
  k.set(m::kLimitBlocks, 32, "block");
  k.set(m::kGridSize, 132 * 2 * 8);
  k.set(m::kSmCount, 132, "SM");
  // Schedulers issue well (2.5 eligible warps, 70% issue): more warps would not help.
  k.set(m::kEligibleWarps, 2.5, "warp");
  k.set(m::kIssueActive, 70, "%");
  EXPECT_NE(classify_kernel(k).cls, Bottleneck::OccupancyBound);
  // Latency hiding failed: 0.4 eligible warps, 20% issue: Occupancy-Bound on registers.
  k.set(m::kEligibleWarps, 0.4, "warp");
  k.set(m::kIssueActive, 20, "%");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::OccupancyBound) << v.summary;
  EXPECT_NE(v.limiter.find("registers"), std::string::npos);
}

TEST(Limiter, ATailEffectIsNamedAsSuchNotAsOccupancy) {
  KernelMetrics k;
  k.set(m::kSmSol, 20, "%");
  k.set(m::kMemSol, 25, "%");
  k.set(m::kDramPct, 25, "%");
  k.set(m::kL1Pct, 10, "%");
  k.set(m::kL2Pct, 15, "%");
  k.set(m::kTheoreticalOcc, 100, "%");
  k.set(m::kAchievedOcc, 40, "%");  // far below theoretical
  k.set(m::kLimitRegisters, 4, "block");
  k.set(m::kLimitShared, 8, "block");
  k.set(m::kLimitWarps, 8, "block");
  k.set(m::kLimitBlocks, 32, "block");
  k.set(m::kSmCount, 132, "SM");
  k.set(m::kGridSize, 132 * 4 * 1.2);  // 1.2 waves: the last one 20% full
  k.set(m::kEligibleWarps, 0.5, "warp");
  k.set(m::kIssueActive, 20, "%");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::LatencyBound) << v.summary;
  EXPECT_NE(v.limiter.find("tail effect"), std::string::npos) << v.limiter;
  // A full last wave (2 waves): the same occupancy gap is the occupancy limit.
  k.set(m::kGridSize, 132 * 4 * 2);
  EXPECT_EQ(classify_kernel(k).cls, Bottleneck::OccupancyBound);
}

TEST(LimiterFindings, PlantedDefectsStillLeadWithTheirUnit) {
  struct Case {
    const char* report;
    const char* id;
    const char* unit;
  };
  for (const Case& c : {Case{"ncurep/uncoalesced_gather.raw.csv", "uncoalesced-loads", "L2"},
                        Case{"ncurep/bank_conflict.raw.csv", "bank-conflicts", "L1/TEX"}}) {
    Verdict v = analyzed(c.report);
    ASSERT_FALSE(v.findings.empty()) << c.report;
    EXPECT_EQ(v.findings.front().id, c.id) << c.report << ": " << v.findings.front().title;
    EXPECT_EQ(v.findings.front().unit, c.unit) << c.report;
    ASSERT_TRUE(v.findings.front().share_pct);
    ASSERT_TRUE(v.findings.front().unit_pct);
    // gain = share x unit busy, at most the cap by the busiest unit the fix leaves alone
    EXPECT_LE(v.findings.front().gain_pct, *v.findings.front().share_pct * *v.findings.front().unit_pct / 100 + 1e-6);
  }
}

TEST(LimiterFindings, BankConflictShareCountsAllOfL1sWork) {
  KernelMetrics k = report_kernel("ncurep/bank_conflict.raw.csv");
  Verdict v = analyzed("ncurep/bank_conflict.raw.csv");
  const Finding* f = find(v, "bank-conflicts");
  ASSERT_TRUE(f);
  double conflicts = *k.number(m::kBankConflicts);
  double work = *k.number(m::kLdSectors) + *k.number(m::kStSectors) + *k.number(m::kSharedWavefronts) +
                k.number(m::kLocalLdSectors).value_or(0) + k.number(m::kLocalStSectors).value_or(0);
  EXPECT_NEAR(*f->share_pct, 100 * conflicts / work, 1e-6);
  EXPECT_NEAR(f->gain_pct, 100 * conflicts / work * *k.number(m::kL1Pct) / 100, 1e-6);
}

TEST(LimiterFindings, ATensorCoreGemmAtItsPeakLeadsWithThePipeNotWithLatency) {
  Verdict v = analyzed("ncurep/cublas_gemm_4096.raw.csv");
  ASSERT_FALSE(v.findings.empty());
  const Finding* peak = find(v, "pipe-peak");
  ASSERT_TRUE(peak);
  EXPECT_EQ(peak->unit, "Tensor pipe");
  const Finding* idle = find(v, "issue-slots");
  if (idle) EXPECT_LE(idle->gain_pct, 100.0 - *peak->unit_pct + 1e-9);  // capped by the busy tensor pipe
  EXPECT_FALSE(find(v, "uncoalesced-loads"));
}

TEST(LimiterFindings, LatencyAdviceLeadsOnlyWhenNoUnitIsBusy) {
  // tiny: one block, every unit idle: idle issue slots lead.
  Verdict tiny = analyzed("ncu/tiny.raw.csv");
  ASSERT_FALSE(tiny.findings.empty());
  EXPECT_FALSE(some_unit_busy(report_kernel("ncu/tiny.raw.csv")));
  EXPECT_EQ(tiny.findings.front().id, "issue-slots");
  // Every latency finding on a kernel with a busy unit is capped by that unit.
  for (const char* rel : {"ncurep/bank_conflict.raw.csv", "ncurep/uncoalesced_gather.raw.csv"}) {
    KernelMetrics k = report_kernel(rel);
    ASSERT_TRUE(some_unit_busy(k)) << rel;
    double busiest = 0;
    for (const auto& u : unit_loads(k))
      if (u.name != "Issue slots") busiest = std::max(busiest, u.pct);
    for (const auto& f : analyzed(rel).findings)
      if (f.id == "issue-slots" || f.id.rfind("stall-", 0) == 0) EXPECT_LE(f.gain_pct, 100.0 - busiest + 1e-9) << rel;
  }
}

// The SGEMM progression of examples/gemm_progression, profiled on the H200 (tests/data/gemmprog,
// `--set full`, 4096^3): on every step kprof's top finding names the change the next version makes,
// as its README predicted before the run.
TEST(LimiterFindings, GemmProgressionTopFindingNamesTheNextChange) {
  struct Step {
    int v;
    const char* id;       // the finding that must rank first
    const char* unit;     // its unit ("" for latency)
    const char* in_step;  // a word of its next step naming the change the next version makes
  };
  for (const Step& s : {Step{0, "uncoalesced-loads", "L1/TEX", "consecutive threads"},
                        Step{1, "global-reloads", "L1/TEX", "shared memory"},
                        Step{2, "shared-reloads", "L1/TEX", "several outputs per thread"},
                        Step{3, "shared-reloads", "L1/TEX", "TM x TN tile"}, Step{4, "occupancy", "", "registers"},
                        Step{5, "bank-conflicts", "L1/TEX", "bank"}}) {
    std::string rel = "gemmprog/gemm_v" + std::to_string(s.v) + ".raw.csv";
    Verdict v = analyzed(rel);
    ASSERT_FALSE(v.findings.empty()) << rel;
    const Finding& top = v.findings.front();
    EXPECT_EQ(top.id, s.id) << rel << ": first is " << top.title << " " << top.ranked_pct();
    EXPECT_EQ(top.unit, s.unit) << rel;
    EXPECT_NE(top.next_step.find(s.in_step), std::string::npos) << rel << ": " << top.next_step;
  }
}

TEST(LimiterFindings, GemmProgressionLimitersAndNoLsuComputeClass) {
  // v1 is limited by LSU/MIO issue (71.2%): it must not read "Compute-Bound on the LSU pipe".
  Verdict v1 = analyzed("gemmprog/gemm_v1.raw.csv");
  ASSERT_FALSE(v1.units.empty());
  EXPECT_EQ(v1.units.front().name, "LSU/MIO issue");
  EXPECT_EQ(v1.summary.find("Compute-Bound on the LSU"), std::string::npos) << v1.summary;
  // v1's reload finding is capped by LSU/MIO issue, which shared-memory tiles leave as it is
  // (v2 issues as many LSU instructions): the cap is 100% - that unit's busy %.
  const Finding* reload = find(v1, "global-reloads");
  ASSERT_TRUE(reload);
  EXPECT_NEAR(reload->ranked_pct(), 100.0 - v1.units.front().pct, 1e-6);
  // v4: latency hiding failed (0.67 eligible warps, 41% issue) with a register limit.
  EXPECT_EQ(analyzed("gemmprog/gemm_v4.raw.csv").cls, Bottleneck::OccupancyBound);
  // v0's excess sectors are the uncoalesced finding's, not counted again as reloads.
  Verdict v0 = analyzed("gemmprog/gemm_v0.raw.csv");
  ASSERT_TRUE(find(v0, "global-reloads"));
  EXPECT_LT(find(v0, "global-reloads")->gain_pct, find(v0, "uncoalesced-loads")->gain_pct);
}
