// Issue 42 on real H200 reports: the launch floor under the time bound, the DRAM ceiling named and
// taken from what is known for the GPU, ratios with a zero input "not measured" (cuBLAS's TMA
// loads), one finding per cause, negligible findings on one line, and the ILP finding. Real data:
// tests/data/ncu (copy, fma, tiny: NVIDIA H200), tests/data/ncurep (cuBLAS wgmma GEMM), gemmprog.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/fs.hpp"
#include "flows/ceiling_cache.hpp"
#include "report/bound_report.hpp"
#include "report/findings_report.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/findings.hpp"
#include "stages/analysis/known_gpus.hpp"
#include "stages/analysis/signals.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;
namespace m = kprof::metric;

namespace {

NcuAnalysis analyzed(const std::string& rel, bool known_gpus) {
  AnalysisContext ctx;
  if (known_gpus) ctx.known_gpus = committed_gpu_ceilings();
  return analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel), ctx);
}

/// The leading launch's verdict (a copy: the analysis it came from is a temporary).
Verdict lead(const NcuAnalysis& a) { return a.verdict.kernels.at(static_cast<size_t>(a.verdict.leading)); }

const Finding* find(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

TEST(LaunchFloor, BoundsAOneBlockKernelWhoseWorkTakesLess) {
  // tiny: one block of 128 threads, 3.07 ms; its DRAM bytes take under 1 us at any ceiling, so the
  // committed H200 floor (1.47 us) is the bound, and the bound says so.
  NcuAnalysis with = analyzed("ncu/tiny.raw.csv", true);
  ASSERT_TRUE(with.verdict.implementation_bound);
  const TimeBound& b = *with.verdict.implementation_bound;
  const LaunchFloor& floor = *committed_gpu_ceilings().front().floor;
  ASSERT_TRUE(b.bound_s && b.floor_s);
  EXPECT_TRUE(b.floor_binds);
  EXPECT_DOUBLE_EQ(*b.bound_s, floor.seconds);
  EXPECT_DOUBLE_EQ(*b.max_speedup, b.measured_s / floor.seconds);
  EXPECT_NE(b.binding.find("launch floor"), std::string::npos) << b.binding;
  EXPECT_NE(implementation_bound_sentence(b).find("bounds, not the work"), std::string::npos);
  // Without a floor the work alone is the bound: far below what any kernel takes.
  NcuAnalysis without = analyzed("ncu/tiny.raw.csv", false);
  const TimeBound& w = *without.verdict.implementation_bound;
  ASSERT_TRUE(w.bound_s);
  EXPECT_FALSE(w.floor_s);
  EXPECT_LT(*w.bound_s, floor.seconds);
  EXPECT_GT(*w.max_speedup, *b.max_speedup);
}

TEST(LaunchFloor, IsShownButDoesNotBindALongKernel) {
  NcuAnalysis a = analyzed("ncu/copy.raw.csv", true);
  const TimeBound& b = *a.verdict.implementation_bound;
  ASSERT_TRUE(b.floor_s && b.bound_s);
  EXPECT_FALSE(b.floor_binds);
  EXPECT_GT(*b.bound_s, *b.floor_s);
  EXPECT_NE(implementation_bound_sentence(b).find("launch floor"), std::string::npos);
  nlohmann::json j = implementation_bound_json(b);
  EXPECT_DOUBLE_EQ(j["floor"]["value"].get<double>(), *b.floor_s);
  EXPECT_FALSE(j["floor"]["binds"].get<bool>());
}

TEST(DramCeiling, AnalyzeUsesTheAchievableOneKnownForTheGpuAndNamesIt) {
  // The copy (NVIDIA H200, 132 us): at the committed achievable 4.22 TB/s its own DRAM bytes take
  // longer than at the theoretical peak, so it is nearer its bound; the binding term says which
  // ceiling and where it was measured.
  NcuAnalysis known = analyzed("ncu/copy.raw.csv", true);
  NcuAnalysis theo = analyzed("ncu/copy.raw.csv", false);
  const TimeBound& k = *known.verdict.implementation_bound;
  const TimeBound& t = *theo.verdict.implementation_bound;
  EXPECT_NE(k.binding.find("achievable"), std::string::npos) << k.binding;
  EXPECT_NE(k.binding.find("issue 16"), std::string::npos) << k.binding;
  EXPECT_NE(t.binding.find("theoretical"), std::string::npos) << t.binding;
  EXPECT_NE(t.binding.find("no achievable bandwidth known"), std::string::npos) << t.binding;
  ASSERT_TRUE(k.max_speedup && t.max_speedup);
  EXPECT_LT(*k.max_speedup, *t.max_speedup);
  EXPECT_GT(*k.bound_s, *t.bound_s);
  ASSERT_TRUE(known.verdict.ceilings && known.verdict.ceilings->dram_achievable);
  EXPECT_EQ(ceilings_json(*known.verdict.ceilings)["dram_ceiling_used"]["kind"], "achievable");
  EXPECT_EQ(ceilings_json(*theo.verdict.ceilings)["dram_ceiling_used"]["kind"], "theoretical");
}

TEST(DramCeiling, ThisMachinesCacheComesBeforeTheCommittedValues) {
  nlohmann::json doc = nlohmann::json::object();
  AchievableBandwidth bw{4.31e12, "copy kernel, median of 20", "2026-12-05T00:00:00Z", false};
  doc = cache_store(doc, "NVIDIA H200|00000000:19:00.0|driver 58015|copy-v1", bw);
  LaunchFloor f;
  f.seconds = 1.2e-6;
  f.how = "empty kernel";
  f.measured_at = "2026-12-05T00:00:00Z";
  doc = floor_cache_store(doc, floor_cache_key("NVIDIA H200|00000000:19:00.0|driver 58015|copy-v1"), f);
  auto from_cache = ceilings_for_gpu(known_gpu_ceilings(doc), "NVIDIA H200");
  ASSERT_TRUE(from_cache && from_cache->dram_achievable && from_cache->floor);
  EXPECT_DOUBLE_EQ(from_cache->dram_achievable->per_s, 4.31e12);
  EXPECT_DOUBLE_EQ(from_cache->floor->seconds, 1.2e-6);
  EXPECT_FALSE(from_cache->floor->provisional);
  // An empty cache: the committed H200 values (the floor measured on the empty kernel: not provisional).
  auto committed = ceilings_for_gpu(known_gpu_ceilings(nlohmann::json::object()), "NVIDIA H200");
  ASSERT_TRUE(committed && committed->floor && committed->dram_achievable);
  EXPECT_FALSE(committed->floor->provisional);
  EXPECT_DOUBLE_EQ(committed->floor->seconds, 1.472e-6);
  EXPECT_DOUBLE_EQ(committed->dram_achievable->per_s, committed_gpu_ceilings().front().dram_achievable->per_s);
  EXPECT_FALSE(ceilings_for_gpu(known_gpu_ceilings(doc), "NVIDIA A100-SXM4-80GB"));
}

TEST(NotMeasured, ARatioWithAZeroInputIsNotAFinding) {
  // cuBLAS's wgmma GEMM loads through TMA (1.61 GB): its LDG requests, sectors and bytes per sector
  // are 0. Its own signal row is n/a (no request); a kernel loading through LDGSTS has LDG requests
  // and sectors but 0 LDG bytes per sector, so the row fires (the issue's "4 sectors per request
  // where -0 would do"). Fired here on this report's real metrics, the rule where findings are
  // formed keeps it from becoming a finding and names the asynchronous copies.
  KernelMetrics k =
      parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncurep/cublas_gemm_4096.raw.csv")).kernels.at(0);
  ASSERT_EQ(catalog_value(k, m::kLdBytesPerSector), 0.0);
  ASSERT_GT(*catalog_value(k, m::kTmaLdBytes), 0.0);
  std::vector<SignalRow> signals = evaluate_signals(k, std::nullopt);
  bool fired = false;
  for (auto& row : signals)
    if (row.id == "uncoalesced-loads") {
      EXPECT_NE(row.state, SignalState::Fires);  // the signal layer's own rule for 0 requests
      row.state = SignalState::Fires;
      fired = true;
    }
  ASSERT_TRUE(fired);
  std::vector<NotMeasured> nm;
  auto findings = findings_for_kernel(k, signals, Bottleneck::ComputeBound, std::nullopt, &nm);
  for (const auto& f : findings) EXPECT_NE(f.id, "uncoalesced-loads") << f.formula;
  ASSERT_EQ(nm.size(), 1u);
  EXPECT_EQ(nm[0].id, "uncoalesced-loads");
  EXPECT_NE(nm[0].why.find(std::string(m::kLdBytesPerSector) + " is 0"), std::string::npos) << nm[0].why;
  EXPECT_NE(nm[0].why.find("TMA"), std::string::npos) << nm[0].why;
  EXPECT_NE(not_measured_line(nm[0]).find("not measured"), std::string::npos);
  // Without the rule's inputs at 0 (SGEMM v0: real LDG loads, 16.5 sectors per request) the same
  // signal is a finding.
  KernelMetrics v0 =
      parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/gemmprog/gemm_v0.raw.csv")).kernels.at(0);
  std::vector<NotMeasured> none;
  auto f0 = findings_for_kernel(v0, evaluate_signals(v0, std::nullopt), Bottleneck::MemoryBound, std::nullopt, &none);
  EXPECT_TRUE(find(f0, "uncoalesced-loads"));
  EXPECT_TRUE(none.empty());
}

TEST(OneFindingPerCause, IssueHeadroomFindingsWithOneGainAreOne) {
  // The copy: long-scoreboard stalls and idle issue slots are both capped by the issue headroom
  // (13.3%): one finding, both titles and evidence, ncu's rules about either attach to it.
  Verdict v = lead(analyzed("ncu/copy.raw.csv", true));
  const Finding* f = find(v.findings, "stall-long_scoreboard");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->merged_ids, std::vector<std::string>{"issue-slots"});
  EXPECT_FALSE(find(v.findings, "issue-slots"));
  EXPECT_NE(f->title.find("Idle issue slots"), std::string::npos) << f->title;
  EXPECT_NE(f->evidence.find("Issue slot"), std::string::npos) << f->evidence;
  // Different gains stay apart (tiny: idle issue slots 98.8%, long-scoreboard stalls 94.8%).
  Verdict t = lead(analyzed("ncu/tiny.raw.csv", true));
  EXPECT_TRUE(find(t.findings, "issue-slots"));
  EXPECT_TRUE(find(t.findings, "stall-long_scoreboard"));
}

TEST(OneFindingPerCause, AComputeKernelHeldByDependenciesGetsTheIlpFinding) {
  // The FMA fixture (2048 dependent FMAs per element): Compute-Bound, FMA pipe 66.9%, wait stalls
  // 24% of the stall cycles. Before issue 42 its only finding was "Narrow loads 0.0285%".
  Verdict v = lead(analyzed("ncu/fma.raw.csv", true));
  ASSERT_EQ(v.cls, Bottleneck::ComputeBound);
  ASSERT_FALSE(v.findings.empty());
  EXPECT_EQ(v.findings.front().id, "ilp") << v.findings.front().title;
  EXPECT_GE(v.findings.front().gain_pct, threshold::kNegligibleGainPct);
  EXPECT_NE(v.findings.front().next_step.find("accumulators"), std::string::npos);
  EXPECT_TRUE(find(v.negligible, "vector-loads"));
  // A memory-bound kernel gets none (the copy).
  EXPECT_FALSE(find(lead(analyzed("ncu/copy.raw.csv", true)).findings, "ilp"));
}

TEST(OneFindingPerCause, NegligibleFindingsGoToOneLine) {
  for (const char* rel : {"ncu/fma.raw.csv", "ncu/copy.raw.csv", "ncurep/cublas_gemm_4096.raw.csv",
                          "gemmprog/gemm_v0.raw.csv", "gemmprog/gemm_v4.raw.csv"}) {
    Verdict v = lead(analyzed(rel, true));
    for (const auto& f : v.findings) EXPECT_GE(f.ranked_pct(), threshold::kNegligibleGainPct) << rel << " " << f.title;
    for (const auto& f : v.negligible) EXPECT_LT(f.ranked_pct(), threshold::kNegligibleGainPct) << rel;
    EXPECT_EQ(negligible_line(v).empty(), v.negligible.empty()) << rel;
  }
}
