// The time bound and headroom (stages/analysis/bound.hpp) on the real H200 exports and on the worked
// example of docs/CLASSIFICATION.md (the 64 Mi-element vector add).
#include <gtest/gtest.h>

#include "stages/analysis/bound.hpp"
#include "core/fs.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;

namespace {

KernelMetrics fixture(const std::string& rel) {
  return parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel)).kernels.at(0);
}

constexpr double kN = 67108864.0;  // 64 Mi float32 elements

std::vector<BufferUse> vadd_buffers(bool rule) {
  return {{"A", kN * 4, false, rule}, {"B", kN * 4, false, rule}, {"C", kN * 4, true, rule}};
}

}  // namespace

TEST(WorkModel, InputsReadOnceOutputsWrittenOnce) {
  WorkModel w = work_from_buffers(vadd_buffers(false));
  ASSERT_TRUE(w.min_bytes);
  EXPECT_DOUBLE_EQ(*w.min_bytes, 805306368.0);  // 768 MiB
  EXPECT_DOUBLE_EQ(*w.input_bytes, 2 * kN * 4);
  EXPECT_FALSE(w.bytes_rest_on_seed_rule);
  EXPECT_NE(w.bytes_how.find("inputs read once (A 268 MB, B 268 MB)"), std::string::npos) << w.bytes_how;
  EXPECT_TRUE(work_from_buffers({}).min_bytes == std::nullopt);
}

TEST(WorkModel, SaysWhenTheBytesRestOnTheSeedRule) {
  WorkModel w = work_from_buffers(vadd_buffers(true));
  EXPECT_TRUE(w.bytes_rest_on_seed_rule);
  EXPECT_NE(w.bytes_how.find("sized by the original kernel-profile scripts' rule"), std::string::npos) << w.bytes_how;
}

TEST(Ceilings, DramPeakIsNcusPeakTimesTheDramClock) {
  Ceilings c = ceilings_from_ncu(fixture("ncu/copy.raw.csv"), std::nullopt);
  ASSERT_TRUE(c.dram);
  EXPECT_NEAR(c.dram->per_s, 1504.0 * 3.198788e9, 1e7);  // 4.81 TB/s
  EXPECT_NE(c.dram->how.find("dram__bytes.sum.peak_sustained"), std::string::npos);
  EXPECT_EQ(c.precision, "FP32");  // a copy executes no FLOPs: FP32 by default
}

TEST(Ceilings, TensorGemmUsesTheDenseWgmmaPeakAtTheGivenClock) {
  KernelMetrics k = fixture("ncurep/cublas_gemm_4096.raw.csv");
  Ceilings ncu_clock = ceilings_from_ncu(k, std::nullopt);
  EXPECT_EQ(ncu_clock.precision, "FP16 tensor");
  ASSERT_TRUE(ncu_clock.flop_peak);
  double hz = *catalog_value(k, metric::kSmFreq);
  EXPECT_NEAR(ncu_clock.flop_peak->per_s, 540672.0 * hz, 1e9);
  Ceilings at_max = ceilings_from_ncu(k, 1.98e9);
  EXPECT_NEAR(at_max.flop_peak->per_s, 540672.0 * 1.98e9, 1e9);  // 1.07 PFLOP/s
  EXPECT_NE(at_max.sm_clock_how.find("NVML"), std::string::npos);
}

TEST(TimeBound, WorkedExampleOfTheDocs) {
  Ceilings c;
  c.dram = Rate{1504.0 * 3.1988e9, "theoretical"};
  c.dram_achievable = Rate{4.3e12, "kprof's copy"};
  TimeBound b = compute_bound(work_from_buffers(vadd_buffers(false)), c, 236.0e-6, "CUPTI");
  ASSERT_TRUE(b.bound_s);
  EXPECT_NEAR(*b.bound_s * 1e6, 187.28, 0.05);        // 805,306,368 B / 4.3 TB/s
  EXPECT_NEAR(*b.theoretical_s * 1e6, 167.37, 0.05);  // / 4.811 TB/s
  EXPECT_NEAR(*b.pct_of_bound, 79.4, 0.1);
  EXPECT_NEAR(*b.pct_of_theoretical, 70.9, 0.1);
  EXPECT_NEAR(*b.max_speedup, 1.26, 0.01);
  EXPECT_NEAR(b.headroom(), 1 - 187.28 / 236.0, 1e-3);
  EXPECT_NE(b.binding.find("achievable"), std::string::npos) << b.binding;
  std::string s = bound_sentence(b);
  EXPECT_NE(s.find("at most 1.26x faster"), std::string::npos) << s;
  ASSERT_EQ(b.terms.size(), 2u);
  EXPECT_NE(b.terms[0].arithmetic.find("805 MB / 4.81 TB/s"), std::string::npos) << b.terms[0].arithmetic;
}

TEST(TimeBound, DeclaredFlopsOfATensorGemmBindOnCompute) {
  // The real cuBLAS fp16 GEMM 4096^3 report: 2 x 4096^3 FLOPs at the wgmma dense peak, against
  // ncu's own duration of that call: the bound equals the tensor path's share of its peak (90.6%).
  KernelMetrics k = fixture("ncurep/cublas_gemm_4096.raw.csv");
  WorkModel w;
  w.min_bytes = 3.0 * 4096 * 4096 * 2;
  w.flops = 2.0 * 4096 * 4096 * 4096;
  TimeBound b =
      compute_bound(w, ceilings_from_ncu(k, std::nullopt), *catalog_value(k, metric::kDuration) * 1e-9, "ncu");
  ASSERT_TRUE(b.pct_of_bound);
  EXPECT_NE(b.binding.find("compute at the FP16 tensor peak"), std::string::npos) << b.binding;
  EXPECT_NEAR(*b.pct_of_bound, 90.6, 0.5);
}

TEST(TimeBound, AMeasurementBelowTheBoundIsOverHundredPercentWithANote) {
  Ceilings c;
  c.dram = Rate{1e12, ""};
  WorkModel w;
  w.min_bytes = 1e9;  // 1 ms at 1 TB/s
  TimeBound b = compute_bound(w, c, 0.9e-3, "x");
  EXPECT_NEAR(*b.pct_of_bound, 111.1, 0.1);  // shown as it is: the ceiling was too low
  EXPECT_DOUBLE_EQ(*b.max_speedup, 1.0);
  EXPECT_DOUBLE_EQ(b.headroom(), 0.0);
  bool noted = false;
  for (const auto& n : b.notes) noted = noted || n.find("below the bound") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(TimeBound, NoWorkNoBound) {
  TimeBound b = compute_bound(WorkModel{}, Ceilings{}, 1e-3, "x");
  EXPECT_FALSE(b.bound_s);
  EXPECT_DOUBLE_EQ(b.headroom(), 0.0);
  EXPECT_NE(bound_sentence(b).find("not known"), std::string::npos);
}

TEST(ImplementationEfficiency, BusiestUnitOnRealReports) {
  auto bank = implementation_efficiency(fixture("ncurep/bank_conflict.raw.csv"));
  ASSERT_TRUE(bank);
  EXPECT_EQ(bank->unit, "L1");
  EXPECT_NEAR(bank->pct, 82.24, 0.01);
  auto gemm = implementation_efficiency(fixture("ncurep/cublas_gemm_8192.gmma_metrics.csv"));
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->unit, "Tensor pipe");
  EXPECT_NEAR(gemm->pct, 96.88, 0.01);
}
