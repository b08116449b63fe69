// The unit behind SM SOL and memory SOL (stages/analysis/sol_source.hpp, issue 42): ncu's
// breakdown leaves of every real H200 report account for its SOLs; a unit that does not account
// for a SOL within 5 points is not named (the candidates are listed); reports without the
// breakdown fall back to the catalog's units; the classifier names the unit. Real data:
// tests/data/gemmprog (SGEMM v0-v5), tests/data/ncurep (planted kernels, cuBLAS), tests/data/ncu.
#include <gtest/gtest.h>

#include <cmath>

#include "core/fs.hpp"
#include "ncu_report_guard.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/classify.hpp"
#include "stages/analysis/sol_source.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/ncu/ncu_rep.hpp"

using namespace kprof;
namespace m = kprof::metric;

namespace {

KernelMetrics report_kernel(const std::string& rel) {
  return parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel)).kernels.at(0);
}

const char* const kReports[] = {"gemmprog/gemm_v0.raw.csv",
                                "gemmprog/gemm_v1.raw.csv",
                                "gemmprog/gemm_v2.raw.csv",
                                "gemmprog/gemm_v3.raw.csv",
                                "gemmprog/gemm_v4.raw.csv",
                                "gemmprog/gemm_v5.raw.csv",
                                "ncurep/bank_conflict.raw.csv",
                                "ncurep/cublas_gemm_4096.raw.csv",
                                "ncurep/divergent.raw.csv",
                                "ncurep/local_spill.raw.csv",
                                "ncurep/uncoalesced_gather.raw.csv",
                                "ncu/copy.raw.csv",
                                "ncu/fma.raw.csv",
                                "ncu/strided.raw.csv",
                                "ncu/tiny.raw.csv"};

/// `k` without the leaves of `unit` (the report as if ncu had not listed that unit).
KernelMetrics without_unit(KernelMetrics k, const std::vector<SolLeaf>& leaves, const std::string& unit) {
  for (const auto& leaf : leaves)
    if (unit == leaf.unit) k.metrics.erase(leaf.name);
  return k;
}

}  // namespace

TEST(SolSource, TheBreakdownAccountsForBothSolsOfEveryRealReport) {
  for (const char* rel : kReports) {
    KernelMetrics k = report_kernel(rel);
    for (auto src : {sm_sol_source(k), memory_sol_source(k)}) {
      ASSERT_TRUE(src) << rel;
      EXPECT_TRUE(src->from_breakdown) << rel;
      ASSERT_TRUE(src->source) << rel << ": " << src->text();
      // ncu's SOL is the maximum of its breakdown: the busiest leaf equals it to the last digit.
      EXPECT_NEAR(src->candidates.front().pct, src->sol_pct, 1e-6) << rel << " " << src->sol;
      EXPECT_LE(std::fabs(src->source->pct - src->sol_pct), threshold::kSolSourcePts) << rel;
      for (size_t i = 1; i < src->candidates.size(); ++i) EXPECT_GE(src->candidates[i - 1].pct, src->candidates[i].pct);
    }
  }
}

TEST(SolSource, NamesTheUnitsTheOldListLacked) {
  // cuBLAS's wgmma GEMM: SM SOL 90.6% is the tensor pipe's (elapsed); the copy: DRAM behind memory
  // SOL while L2 throughput (86.7%) is above it (lts__throughput is not in the memory breakdown).
  auto cublas = sm_sol_source(report_kernel("ncurep/cublas_gemm_4096.raw.csv"));
  ASSERT_TRUE(cublas && cublas->source);
  EXPECT_EQ(cublas->source->name, "Tensor pipe");
  auto copy = report_kernel("ncu/copy.raw.csv");
  auto mem = memory_sol_source(copy);
  ASSERT_TRUE(mem && mem->source);
  EXPECT_EQ(mem->source->name, "DRAM");
  EXPECT_LT(mem->sol_pct, *copy.number(m::kL2Pct));
  // The copy's SM SOL 6.26% is the ALU pipe's (index arithmetic), the uncoalesced gather's memory
  // SOL the L2 tag stage's, SGEMM v1's SM SOL the LSU pipe's.
  EXPECT_EQ(sm_sol_source(copy)->source->name, "ALU pipe");
  EXPECT_EQ(memory_sol_source(report_kernel("ncurep/uncoalesced_gather.raw.csv"))->source->name, "L2");
  EXPECT_EQ(sm_sol_source(report_kernel("gemmprog/gemm_v1.raw.csv"))->source->name, "LSU pipe");
}

TEST(SolSource, AUnitFartherThanFivePointsIsNotNamed) {
  // cuBLAS without its tensor and shared-pipe leaves: no remaining unit comes within 5 points of
  // SM SOL 90.6%, so the source is not identified and the candidates are listed.
  KernelMetrics k = report_kernel("ncurep/cublas_gemm_4096.raw.csv");
  k = without_unit(without_unit(k, sm_sol_leaves(), "Tensor pipe"), sm_sol_leaves(), "Shared pipe (FP16 + tensor)");
  auto src = sm_sol_source(k);
  ASSERT_TRUE(src);
  ASSERT_FALSE(src->candidates.empty());
  EXPECT_GT(src->sol_pct - src->candidates.front().pct, threshold::kSolSourcePts);
  EXPECT_FALSE(src->source);
  EXPECT_NE(src->text().find("not identified"), std::string::npos) << src->text();
  EXPECT_NE(src->text().find(src->candidates.front().name), std::string::npos) << src->text();
  // The verdict says so too: an evidence row that does not hold.
  Verdict v = classify_kernel(k);
  bool row = false;
  for (const auto& e : v.evidence)
    if (e.check == "Unit behind SM SOL") {
      row = true;
      EXPECT_FALSE(e.holds);
      EXPECT_NE(e.value.find("not identified"), std::string::npos);
    }
  EXPECT_TRUE(row);
  // Compute-Bound by the seed's SOL rule (SM SOL 90.6% and 20 points above memory SOL), with no
  // unit named: not the LSU pipe nor the busiest remaining one, which do not account for it.
  EXPECT_EQ(v.cls, Bottleneck::ComputeBound);
  EXPECT_EQ(v.limiter, "unit not identified");
  EXPECT_NE(v.summary.find("not identified"), std::string::npos) << v.summary;
}

TEST(SolSource, ReportsWithoutTheBreakdownUseTheCatalogUnits) {
  // ncu's basic set exported alone (tests/data/ncu/copy.basic-like.raw.csv): no leaf, so the
  // catalog's units under the same 5-point rule: DRAM (gpu__dram_throughput 80.9%) accounts for
  // memory SOL; nothing of the SM side was collected, so SM SOL's source is not identified.
  KernelMetrics k = report_kernel("ncu/copy.basic-like.raw.csv");
  auto mem = memory_sol_source(k);
  ASSERT_TRUE(mem);
  EXPECT_FALSE(mem->from_breakdown);
  ASSERT_TRUE(mem->source) << mem->text();
  EXPECT_EQ(mem->source->name, "DRAM");
  EXPECT_EQ(mem->source->metric, m::kDramPct);
  auto sm = sm_sol_source(k);
  ASSERT_TRUE(sm);
  EXPECT_FALSE(sm->from_breakdown);
  EXPECT_FALSE(sm->source);
  EXPECT_NE(sm->text().find("no SOL breakdown"), std::string::npos) << sm->text();
}

TEST(SolSource, TheClassifierNamesTheUnitBehindSmSol) {
  // The FMA kernel: SM SOL 70.7% is the issue slots' (sm__issue_active); the FMA pipe (66.3%)
  // accounts for it too and is the more specific unit: Compute-Bound on the FMA pipe.
  KernelMetrics fk = report_kernel("ncu/fma.raw.csv");
  Verdict fma = classify_kernel(fk);
  EXPECT_EQ(fma.cls, Bottleneck::ComputeBound);
  EXPECT_EQ(fma.limiter, "FMA pipe");
  EXPECT_EQ(sm_sol_source(fk)->candidates.front().name, "Issue slots");
  // Without the FMA pipe's leaves nothing more specific accounts for it: the issue slots are named.
  fk.metrics.erase("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed");
  fk.metrics.erase("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed");
  fk.metrics.erase("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(sm_sol_source(fk)->source->name, "Issue slots");
  // SGEMM v1 and v2: SM SOL 70.5% / 70.4% from the LSU pipe, memory SOL as high: not
  // Compute-Bound; the row names the LSU pipe.
  for (const char* rel : {"gemmprog/gemm_v1.raw.csv", "gemmprog/gemm_v2.raw.csv"}) {
    Verdict v = classify_kernel(report_kernel(rel));
    EXPECT_NE(v.cls, Bottleneck::ComputeBound) << rel;
    bool row = false;
    for (const auto& e : v.evidence)
      if (e.check == "Unit behind SM SOL") {
        row = true;
        EXPECT_EQ(e.value.rfind("LSU pipe", 0), 0u) << e.value;
      }
    EXPECT_TRUE(row) << rel;
  }
}

TEST(SolSource, ANcuRepCarriesNcusOwnListOfTheLeaves) {
  // A .ncu-rep holds ncu's breakdown itself ("breakdown:sm__throughput...", the leaves' names):
  // read through ncu_report, the source comes from that list, and it names the same units as
  // kprof's copy of the list does for the CSV export of the same report.
  std::string why = kprof_test::ncu_report_skip_reason();
  if (!why.empty()) GTEST_SKIP() << why;
  NcuRepReadOptions o;
  o.source = false;
  o.rules = false;
  MetricTable t =
      metric_table_from_rep(read_ncu_rep(std::string(KPROF_TEST_DATA) + "/ncurep/cublas_gemm_4096.ncu-rep", o));
  ASSERT_EQ(t.kernels.size(), 1u);
  const KernelMetrics& k = t.kernels[0];
  ASSERT_FALSE(k.text(m::kSmSolBreakdown).empty());
  KernelMetrics csv = report_kernel("ncurep/cublas_gemm_4096.raw.csv");
  for (auto [rep, exp] : {std::make_pair(sm_sol_source(k), sm_sol_source(csv)),
                          std::make_pair(memory_sol_source(k), memory_sol_source(csv))}) {
    ASSERT_TRUE(rep && exp && rep->source && exp->source);
    EXPECT_TRUE(rep->breakdown_in_report);
    EXPECT_FALSE(exp->breakdown_in_report);
    EXPECT_EQ(rep->source->name, exp->source->name);
    EXPECT_NEAR(rep->source->pct, rep->sol_pct, 1e-6);
    EXPECT_EQ(rep->candidates.size(), exp->candidates.size()) << rep->sol;
  }
}
