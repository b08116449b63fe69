// Secondary signals that must not fire falsely and the ones not in the seed's table, on real
// H200 reports: branch efficiency with no divergent branch, the L1/L2 hit rates on pure streams,
// thread divergence, the tensor pipe as the limiter of Mixed, the stalls that explain the limiter,
// and the count of firing signals per kernel (docs/CLASSIFICATION.md's before/after table).
#include <gtest/gtest.h>

#include <map>

#include "stages/analysis/analyze.hpp"
#include "stages/analysis/classify.hpp"
#include "core/fs.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;

namespace {

std::string data(const std::string& rel) { return std::string(KPROF_TEST_DATA) + "/" + rel; }

KernelMetrics fixture(const std::string& rel) { return parse_ncu_raw_csv(read_file(data(rel))).kernels.at(0); }

const SignalRow& signal(const Verdict& v, const std::string& id) {
  for (const auto& s : v.signals)
    if (s.id == id) return s;
  throw std::runtime_error("no signal " + id);
}

int firing(const Verdict& v) {
  int n = 0;
  for (const auto& s : v.signals) n += s.state == SignalState::Fires;
  return n;
}

}  // namespace

TEST(SignalsIssue16, BranchEfficiencyWithNoDivergentBranchIsEmptyNotBad) {
  for (const char* f : {"ncurep/bank_conflict.raw.csv", "ncurep/local_spill.raw.csv"}) {
    Verdict v = classify_kernel(fixture(f));
    const SignalRow& s = signal(v, "branch-efficiency");
    EXPECT_EQ(s.state, SignalState::NotApplicable) << f << ": " << s.value;
    EXPECT_NE(s.value.find("0 divergent branch targets"), std::string::npos) << s.value;
  }
  // A kernel with divergent branches keeps the row firing.
  EXPECT_EQ(signal(classify_kernel(fixture("ncurep/divergent.raw.csv")), "branch-efficiency").state,
            SignalState::Fires);
}

TEST(SignalsIssue16, HitRatesDoNotFireOnStreams) {
  for (const char* f : {"ncu/copy.raw.csv", "ncu/fma.raw.csv", "ncu/tiny.raw.csv", "ncurep/divergent.raw.csv"}) {
    Verdict v = classify_kernel(fixture(f));
    const SignalRow& s = signal(v, "l1-hit");
    EXPECT_EQ(s.state, SignalState::Clear) << f << ": " << s.value;
    EXPECT_NE(s.value.find("a stream, nothing to hit"), std::string::npos) << s.value;
  }
}

TEST(SignalsIssue16, HitRatesFireOnlyWhereDataIsReused) {
  // The strided gather reads each of its 64 Mi elements once, through 32-byte sectors of which it
  // uses 4 bytes: the extra sectors are waste (the coalescing signal), not reuse. Neither with the
  // buffers' footprint nor with the DRAM bytes does a hit-rate row fire.
  KernelMetrics k = fixture("ncu/strided.raw.csv");
  EXPECT_EQ(signal(classify_kernel(k, 2.0 * 67108864 * 4), "l1-hit").state, SignalState::Clear);
  EXPECT_EQ(signal(classify_kernel(k), "l2-hit").state, SignalState::Clear);
  // A kernel that loads 10x its footprint (a naive matrix product re-reading its inputs) with a
  // 10% L1 hit rate: the rows fire and say why.
  KernelMetrics r;
  r.set(metric::kL1Hit, 10, "%");
  r.set(metric::kL2Hit, 30, "%");
  r.set(metric::kLdSectors, 1e9, "sector");
  r.set(metric::kLdBytesPerSector, 32, "byte/sector");
  r.set(metric::kLocalLdSectors, 0, "sector");
  Verdict v = classify_kernel(r, 3.2e9);
  EXPECT_EQ(signal(v, "l1-hit").state, SignalState::Fires) << signal(v, "l1-hit").value;
  EXPECT_NE(signal(v, "l1-hit").value.find("reuse 10"), std::string::npos) << signal(v, "l1-hit").value;
  EXPECT_EQ(signal(v, "l2-hit").state, SignalState::Fires);
  // A TMA kernel loads nothing through L1: the rate is empty, the row n/a.
  EXPECT_EQ(signal(classify_kernel(fixture("ncurep/cublas_gemm_4096.raw.csv")), "l1-hit").state,
            SignalState::NotApplicable);
}

TEST(SignalsIssue16, ThreadDivergenceIsFlaggedWithItsNumber) {
  Verdict v = classify_kernel(fixture("ncurep/divergent.raw.csv"));
  const SignalRow& s = signal(v, "thread-divergence");
  EXPECT_EQ(s.state, SignalState::Fires);
  EXPECT_NE(s.value.find("5.12 of 32 threads"), std::string::npos) << s.value;
  EXPECT_NE(s.value.find("5.05 not predicated off"), std::string::npos) << s.value;
  EXPECT_EQ(signal(classify_kernel(fixture("ncu/copy.raw.csv")), "thread-divergence").state, SignalState::Clear);
}

TEST(SignalsIssue16, TensorGemmAtItsLimitNamesTheTensorPipe) {
  // cuBLAS fp16 GEMM 8192^3 (wgmma): SM SOL 93.5%, memory SOL 94.7%, tensor pipe 96.9%.
  Verdict v = classify_kernel(fixture("ncurep/cublas_gemm_8192.gmma_metrics.csv"));
  EXPECT_EQ(v.cls, Bottleneck::Mixed);
  EXPECT_EQ(v.limiter, "Tensor pipe at 96.9%");
  EXPECT_NE(v.summary.find("limited by the Tensor pipe at 96.9%"), std::string::npos) << v.summary;
  // The 4096^3 report (memory SOL 70%) is Compute-Bound on the tensor pipe.
  Verdict g = classify_kernel(fixture("ncurep/cublas_gemm_4096.raw.csv"));
  EXPECT_EQ(g.cls, Bottleneck::ComputeBound);
  EXPECT_EQ(g.limiter, "Tensor pipe");
}

TEST(SignalsIssue16, LeadingStallsExplainTheLimiter) {
  NcuAnalysis a = analyze_ncu_csv(read_file(data("ncurep/bank_conflict.raw.csv")));
  const Verdict& v = a.verdict.kernels.at(0);
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);
  EXPECT_EQ(v.limiter, "L1");
  EXPECT_NE(v.leading_stalls.find("mio_throttle"), std::string::npos) << v.leading_stalls;
  EXPECT_NE(v.leading_stalls.find("short_scoreboard"), std::string::npos) << v.leading_stalls;
  EXPECT_NE(v.summary.find("leading stalls"), std::string::npos);
  // Latency-Bound names its stalls itself.
  NcuAnalysis t = analyze_ncu_csv(read_file(data("ncu/tiny.raw.csv")));
  EXPECT_TRUE(t.verdict.kernels.at(0).leading_stalls.empty());
}

TEST(SignalsIssue16, FiringSignalsPerKernelAfterTheFixes) {
  // docs/CLASSIFICATION.md "Signals that fire, before and after": the counts after.
  const std::map<std::string, int> expected = {{"ncu/copy.raw.csv", 3},
                                               {"ncu/fma.raw.csv", 0},
                                               {"ncu/tiny.raw.csv", 3},
                                               {"ncu/strided.raw.csv", 4},
                                               {"ncurep/bank_conflict.raw.csv", 3},
                                               {"ncurep/cublas_gemm_4096.raw.csv", 3},
                                               {"ncurep/divergent.raw.csv", 3},
                                               {"ncurep/local_spill.raw.csv", 5},
                                               {"ncurep/uncoalesced_gather.raw.csv", 4}};
  for (const auto& [f, n] : expected) EXPECT_EQ(firing(classify_kernel(fixture(f))), n) << f;
}
