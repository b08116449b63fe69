// The compute term of the time bound and the implementation bound (stages/analysis/bound.hpp):
// the precision of the outputs sets the ceiling, the kernel's executed FLOPs stand in when no
// count exists, a read-mostly kernel above the copy ceiling is named, and the bound of the
// implementation as executed comes from an ncu report alone. Real H200 exports: every expected
// number is recomputed from the report's own values.
#include <gtest/gtest.h>

#include "core/fs.hpp"
#include "core/text.hpp"
#include "report/bound_report.hpp"
#include "report/ncu_report.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/bound.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;
namespace m = metric;

namespace {

KernelMetrics fixture(const std::string& rel) {
  return parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/" + rel)).kernels.at(0);
}

double value(const KernelMetrics& k, const char* name) {
  auto v = catalog_value(k, name);
  EXPECT_TRUE(v) << name;
  return v.value_or(0);
}

bool has_note(const TimeBound& b, const std::string& part) {
  for (const auto& n : b.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

std::string all_notes(const TimeBound& b) {
  std::string s;
  for (const auto& n : b.notes) s += n + "\n";
  return s;
}

/// H200-like ceilings: FP32 SIMT at 66.9 TFLOP/s (the figure kprof prints), the TF32 and FP16
/// tensor paths, FP64 and its tensor path, DRAM 4.81 TB/s.
Ceilings h200_like(const std::string& precision = "FP32") {
  Ceilings c;
  c.dram = Rate{4.81e12, "dram"};
  c.compute = {{"FP32", Rate{66.9e12, "2 x FFMA"}},         {"FP64", Rate{33.5e12, "2 x DFMA"}},
               {"FP16", Rate{133.8e12, "4 x HFMA2"}},       {"FP16 tensor", Rate{1070e12, "hgmma"}},
               {"TF32 tensor", Rate{535e12, "hgmma tf32"}}, {"FP64 tensor", Rate{66.9e12, "dmma"}}};
  c.precision = precision;
  for (const auto& [label, r] : c.compute)
    if (label == precision) c.flop_peak = r;
  return c;
}

constexpr double kGemmFlops = 2.0 * 4096 * 4096 * 4096;  // 1.37e11

}  // namespace

TEST(ComputeTerm, Fp32GemmIsHeldToTheFp32SimtPeakWithTf32AsANote) {
  // The naive CUDA GEMM, 4096^3 float32, 25.9 ms: 2 x 4096^3 FLOPs at 66.9 TFLOP/s = 2.05 ms.
  WorkModel w = work_from_buffers({{"A", 4096.0 * 4096 * 4, false, false, DType::F32},
                                   {"B", 4096.0 * 4096 * 4, false, false, DType::F32},
                                   {"C", 4096.0 * 4096 * 4, true, false, DType::F32}});
  ASSERT_TRUE(w.output_dtype);
  EXPECT_EQ(*w.output_dtype, DType::F32);
  w.flops = kGemmFlops;
  w.flops_how = "counted by PyTorch's FlopCounterMode while reference() ran";
  w.flops_source = FlopSource::Counted;
  TimeBound b = compute_bound(w, h200_like(), 25.9e-3, "CUPTI");
  ASSERT_TRUE(b.bound_s && b.max_speedup);
  EXPECT_NEAR(*b.bound_s, kGemmFlops / 66.9e12, 1e-9);  // 2.054 ms
  EXPECT_NEAR(*b.bound_s * 1e3, 2.05, 0.01);
  EXPECT_NEAR(*b.max_speedup, 25.9e-3 / (kGemmFlops / 66.9e12), 1e-9);
  EXPECT_NEAR(*b.max_speedup, 12.6, 0.05);
  EXPECT_NE(b.binding.find("compute at the FP32 peak"), std::string::npos) << b.binding;
  EXPECT_TRUE(has_note(b, "at the TF32 tensor peak")) << all_notes(b);
  EXPECT_TRUE(has_note(b, "changes the precision")) << all_notes(b);
  EXPECT_TRUE(has_note(b, "FlopCounterMode")) << all_notes(b);
  EXPECT_NE(bound_sentence(b).find("at most 12.6x faster"), std::string::npos) << bound_sentence(b);
}

TEST(ComputeTerm, ThePrecisionOfTheOutputsPicksThePeak) {
  auto precision = [](const Ceilings& c, std::optional<DType> t) {
    auto cc = output_precision_peak(c, t);
    return cc ? cc->precision : std::string("none");
  };
  Ceilings simt = h200_like("FP32");
  EXPECT_EQ(precision(simt, DType::F32), "FP32");
  EXPECT_EQ(output_precision_peak(simt, DType::F32)->other->first, "TF32 tensor");
  EXPECT_EQ(precision(h200_like("TF32 tensor"), DType::F32), "TF32 tensor");  // the kernel ran TF32 itself
  EXPECT_EQ(precision(simt, DType::F16), "FP16 tensor");
  EXPECT_EQ(precision(h200_like("FP16"), DType::F16), "FP16 tensor");
  EXPECT_EQ(output_precision_peak(h200_like("FP16"), DType::F16)->other->first, "FP16");  // CUDA-core note
  EXPECT_EQ(precision(simt, DType::BF16), "FP16");  // no BF16 tensor peak here: the half pipe
  EXPECT_EQ(precision(simt, DType::F64), "FP64");
  EXPECT_EQ(output_precision_peak(simt, DType::F64)->other->first, "FP64 tensor");
  EXPECT_EQ(precision(h200_like("FP64 tensor"), DType::F64), "FP64 tensor");
  EXPECT_EQ(precision(h200_like("FP16 tensor"), std::nullopt), "FP16 tensor");  // no dtype: as executed
  EXPECT_EQ(precision(h200_like("FP16 tensor"), DType::I32), "FP16 tensor");
}

TEST(ComputeTerm, Fp16OutputsOfTheRealCublasGemmUseItsDenseTensorPeak) {
  KernelMetrics k = fixture("ncurep/cublas_gemm_4096.raw.csv");
  Ceilings c = ceilings_from_ncu(k, std::nullopt);
  WorkModel w;
  w.min_bytes = 3.0 * 4096 * 4096 * 2;
  w.flops = kGemmFlops;
  w.output_dtype = DType::F16;
  double ns = value(k, m::kDuration);
  TimeBound b = compute_bound(w, c, ns * 1e-9, "ncu");
  ASSERT_TRUE(b.bound_s);
  double peak = value(k, m::kHgmmaFp16Peak) * value(k, m::kSmFreq);
  EXPECT_NEAR(*b.bound_s, kGemmFlops / peak, 1e-12);
  EXPECT_NEAR(*b.pct_of_bound, 100.0 * kGemmFlops / peak / (ns * 1e-9), 1e-6);
}

TEST(ComputeTerm, WithoutACountTheKernelsExecutedFlopsAreTheTermLabelledAsSuch) {
  // The real `fma` export: FP32 FFMA work, no flops() and no count: its executed FLOPs at the FP32 peak.
  KernelMetrics k = fixture("ncu/fma.raw.csv");
  Ceilings c = ceilings_from_ncu(k, std::nullopt);
  ExecutedWork e = executed_work(k);
  Roofline r = roofline_point(k);
  ASSERT_TRUE(r.fp32_flop);
  WorkModel w;
  w.min_bytes = 1e6;
  w.output_dtype = DType::F32;
  double ns = value(k, m::kDuration);
  TimeBound b = compute_bound(w, c, ns * 1e-9, "ncu", &e);
  ASSERT_TRUE(b.bound_s);
  double fp32_peak = 2.0 * value(k, m::kFfmaPeak) * value(k, m::kSmFreq);
  EXPECT_NEAR(*b.bound_s, *r.fp32_flop / fp32_peak, 1e-12);
  EXPECT_NE(b.binding.find("executed FLOPs"), std::string::npos) << b.binding;
  EXPECT_TRUE(has_note(b, "executed by the kernel (ncu's instruction counts), not the algorithm's minimum"))
      << all_notes(b);
  WorkModel declared = w;
  declared.flops = 1e3;  // a declared flops() wins over the executed count
  TimeBound d = compute_bound(declared, c, ns * 1e-9, "ncu", &e);
  EXPECT_EQ(d.binding.find("executed"), std::string::npos) << d.binding;
}

TEST(ComputeTerm, AReadMostlyKernelAboveTheCopyCeilingNamesItsReadShare) {
  Ceilings c = h200_like();
  c.dram_achievable = Rate{4.3e12, "kprof's copy"};
  ExecutedWork e;
  e.dram_read = 9e8;
  e.dram_write = 1e8;
  e.gpu_time_s = 200e-6;  // 5 TB/s, 90% reads
  WorkModel w;
  w.min_bytes = 1e9;
  TimeBound b = compute_bound(w, c, 200e-6, "CUPTI", &e);
  EXPECT_GT(*b.pct_of_bound, 100.0);  // 1e9 B / 4.3 TB/s = 233 us > 200 us
  EXPECT_TRUE(has_note(b, "reads alone can exceed a copy's bandwidth")) << all_notes(b);
  EXPECT_TRUE(has_note(b, "90% of this kernel's DRAM bytes are reads")) << all_notes(b);
  e.gpu_time_s = 300e-6;  // 3.3 TB/s: below the copy, no such note
  EXPECT_FALSE(has_note(compute_bound(w, c, 300e-6, "CUPTI", &e), "reads alone"));
}

TEST(ImplementationBound, TheRealCopyStreamIsAtMostAbout1_24xFaster) {
  KernelMetrics k = fixture("ncu/copy.raw.csv");
  TimeBound b = implementation_bound(executed_work(k), ceilings_from_ncu(k, std::nullopt));
  ASSERT_TRUE(b.bound_s && b.pct_of_bound && b.max_speedup);
  EXPECT_TRUE(b.implementation);
  double bytes = value(k, m::kDramRead) + value(k, m::kDramWrite);
  double peak = value(k, m::kDramPeakPerCycle) * value(k, m::kDramFreq);
  double measured = value(k, m::kDuration) * 1e-9;
  EXPECT_NEAR(*b.bound_s, bytes / peak, 1e-12);
  EXPECT_DOUBLE_EQ(b.measured_s, measured);
  EXPECT_NEAR(*b.pct_of_bound, 100.0 * bytes / peak / measured, 1e-9);
  EXPECT_NEAR(*b.max_speedup, measured * peak / bytes, 1e-9);
  EXPECT_NEAR(*b.pct_of_bound, 81.0, 2.0);  // the stream runs at ~81% of DRAM peak
  EXPECT_NEAR(*b.max_speedup, 1.24, 0.03);
  EXPECT_NE(b.binding.find("memory"), std::string::npos) << b.binding;
  std::string s = implementation_bound_sentence(b);
  EXPECT_NE(s.find("at this traffic and work"), std::string::npos) << s;
  EXPECT_NE(s.find(fmt_sig(*b.max_speedup, 3) + "x faster"), std::string::npos) << s;
  EXPECT_TRUE(has_note(b, "not the algorithm's")) << all_notes(b);
}

TEST(ImplementationBound, TheRealFmaKernelBindsOnItsFp32Work) {
  KernelMetrics k = fixture("ncu/fma.raw.csv");
  TimeBound b = implementation_bound(executed_work(k), ceilings_from_ncu(k, std::nullopt));
  ASSERT_TRUE(b.bound_s && b.pct_of_bound);
  Roofline r = roofline_point(k);
  ASSERT_TRUE(r.fp32_flop && r.fp32_peak_pct);
  double fp32_peak = 2.0 * value(k, m::kFfmaPeak) * value(k, m::kSmFreq);
  double measured = value(k, m::kDuration) * 1e-9;
  EXPECT_NE(b.binding.find("compute (executed FLOPs) at the FP32 peak"), std::string::npos) << b.binding;
  EXPECT_NEAR(*b.bound_s, *r.fp32_flop / fp32_peak, 1e-12);
  EXPECT_NEAR(*b.pct_of_bound, 100.0 * *r.fp32_flop / fp32_peak / measured, 1e-9);
  // The same FP32 rate as ncu's roofline share of the FP32 peak (per elapsed cycle), within the
  // gap between elapsed cycles / clock and the duration.
  EXPECT_NEAR(*b.pct_of_bound, *r.fp32_peak_pct, 0.05 * *r.fp32_peak_pct);
}

TEST(ImplementationBound, TheRealCublasGemmBindsOnTheFp16TensorPath) {
  KernelMetrics k = fixture("ncurep/cublas_gemm_4096.raw.csv");
  ExecutedWork e = executed_work(k);
  TimeBound b = implementation_bound(e, ceilings_from_ncu(k, std::nullopt));
  ASSERT_TRUE(b.bound_s && b.pct_of_bound);
  double ops = value(k, "sm__ops_path_tensor_src_fp16.sum");
  double peak = value(k, m::kHgmmaFp16Peak) * value(k, m::kSmFreq);
  double measured = value(k, m::kDuration) * 1e-9;
  EXPECT_NE(b.binding.find("FP16 tensor"), std::string::npos) << b.binding;
  EXPECT_NEAR(*b.bound_s, ops / peak, 1e-12);
  EXPECT_NEAR(*b.pct_of_bound, 100.0 * ops / peak / measured, 1e-9);
  double mem =
      (value(k, m::kDramRead) + value(k, m::kDramWrite)) / (value(k, m::kDramPeakPerCycle) * value(k, m::kDramFreq));
  EXPECT_LT(mem, *b.bound_s);  // its DRAM term is smaller
}

TEST(ImplementationBound, AnalyzeOfAReportAloneShowsItInMarkdownAndJson) {
  NcuAnalysis a = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  ASSERT_FALSE(a.verdict.bound);  // no buffers: no algorithm bound
  ASSERT_TRUE(a.verdict.implementation_bound && a.verdict.implementation_bound->bound_s);
  const TimeBound& b = *a.verdict.implementation_bound;
  std::string md = implementation_bound_markdown(a.verdict, 2);
  EXPECT_NE(md.find("## Implementation bound (as executed)"), std::string::npos) << md;
  EXPECT_NE(md.find(implementation_bound_sentence(b)), std::string::npos) << md;
  NcuReportHeader h;
  nlohmann::json j = ncu_json(a.table, a.verdict, h)["call"]["implementation_bound"];
  ASSERT_TRUE(j.is_object()) << j.dump();
  EXPECT_DOUBLE_EQ(j["bound"]["value"].get<double>(), *b.bound_s);
  EXPECT_EQ(j["bound"]["unit"], "s");
  EXPECT_DOUBLE_EQ(j["pct_of_bound"]["value"].get<double>(), *b.pct_of_bound);
  EXPECT_EQ(j["pct_of_bound"]["unit"], "%");
  EXPECT_DOUBLE_EQ(j["max_speedup"]["value"].get<double>(), *b.max_speedup);
  EXPECT_EQ(j["terms"][0]["amount"]["unit"], "B");
  EXPECT_NE(verdict_text(a.verdict).find("implementation bound: at "), std::string::npos) << verdict_text(a.verdict);
  if (!a.verdict.kernels[0].findings.empty())  // not capped by it: the fixes change the traffic
    EXPECT_NE(a.verdict.kernels[0].findings_note.find("implementation bound"), std::string::npos);
}
