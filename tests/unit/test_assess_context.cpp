// The assessment with what a profile measured (stages/analysis/assess.hpp, flows/assess_context.hpp):
// the call's bound against kprof's kernel time, the findings capped by its headroom, kprof's
// timing against ncu's, and the work model from the buffers and ref.py. Real H200 exports; the
// kernel instance and the timing are stand-ins (no GPU).
#include <gtest/gtest.h>

#include "stages/analysis/analyze.hpp"
#include "core/fs.hpp"
#include "flows/assess_context.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// A 64 Mi-element copy's buffers (x in, y out), sized by --size or by the seed's rule.
class CopyKernel final : public KernelInstance {
 public:
  explicit CopyKernel(bool rule) : rule_(rule) {}
  Implementation implementation() const override { return Implementation::CudaCpp; }
  std::string signature() const override { return "solve(const float* x, float* y, int N)"; }
  void prepare(uint64_t) override {}
  std::vector<BufferView> buffers() const override {
    return {{"x", DType::F32, 67108864, nullptr, false, {}, rule_},
            {"y", DType::F32, 67108864, nullptr, true, {}, rule_}};
  }
  std::vector<ScalarArg> scalars() const override { return {{"N", 67108864, true}}; }
  void call() override {}

 private:
  bool rule_;
};

KernelSpec copy_spec() {
  KernelSpec s;
  s.kernel = "copy.cu";
  s.dims.set("N", "67108864");
  return s;
}

}  // namespace

TEST(AssessContext, BoundCapsTheFindingsAndComparesWithNcu) {
  // The real `copy` export (a 64 Mi float4 copy, 132.4 us under ncu) with kprof's numbers: 140 us
  // measured, the achievable 4.3 TB/s, NVML samples at 1980 MHz.
  std::vector<std::string> notes;
  CopyKernel inst(false);
  AnalysisContext ctx;
  ctx.work = call_work(inst, copy_spec(), "", notes);
  ctx.measured_ms = 0.140;
  ctx.measured_std_ms = 0.001;
  ctx.measured_how = "kernel time per call: CUPTI, median of 100";
  ctx.dram_achievable = Rate{4.3e12, "copy"};
  std::vector<ClockSample> s(10);
  for (auto& c : s) c.v.sm_mhz = 1980, c.v.reasons = 0;
  ctx.during = summarize_clock_samples(s, 2.0, 700.0);
  NcuAnalysis a = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"), ctx);
  const CallVerdict& call = a.verdict;
  ASSERT_TRUE(call.bound && call.bound->bound_s);
  EXPECT_NEAR(*call.bound->bound_s * 1e6, 536870912.0 / 4.3e12 * 1e6, 0.01);  // 124.9 us
  EXPECT_NEAR(*call.bound->pct_of_bound, 89.2, 0.1);
  const Verdict& v = call.kernels[0];
  ASSERT_FALSE(v.findings.empty());
  for (const auto& f : v.findings) EXPECT_LE(f.ranked_pct(), 100.0 * call.bound->headroom() + 1e-9) << f.title;
  EXPECT_TRUE(v.findings[0].capped_pct);  // 19.1% issue headroom > 10.8% to the bound
  EXPECT_NE(v.findings_note.find("capped at the headroom"), std::string::npos) << v.findings_note;
  ASSERT_TRUE(call.clocks);
  EXPECT_NEAR(call.clocks->gap_pct, 100.0 * (0.140 - 0.132416) / 0.132416, 0.01);
  EXPECT_TRUE(call.clocks->beyond_noise);  // 7.6 us > 1 us + 2% of 132 us
}

TEST(AssessContext, WorkModelFromBuffersAndRefPy) {
  std::vector<std::string> notes;
  CopyKernel ruled(true);
  WorkModel w = call_work(ruled, copy_spec(), "", notes);
  EXPECT_DOUBLE_EQ(*w.min_bytes, 536870912.0);
  EXPECT_TRUE(w.bytes_rest_on_seed_rule);
  TempDir dir;
  write(dir / "ref.py",
        "def reference(**kw):\n    pass\ndef bytes_moved(N, **kw):\n    return 8 * N\n"
        "def flops(N, **kw):\n    return 0\n");
  WorkModel d = call_work(ruled, copy_spec(), dir / "ref.py", notes);
  EXPECT_DOUBLE_EQ(*d.min_bytes, 8.0 * 67108864);
  EXPECT_FALSE(d.bytes_rest_on_seed_rule);  // ref.py's count replaces the rule-sized buffers'
  EXPECT_NE(d.bytes_how.find("ref.py bytes_moved(N=67108864)"), std::string::npos) << d.bytes_how;
  write(dir / "bad.py", "def reference(**kw):\n    pass\ndef flops(N, **kw):\n    raise ValueError('no')\n");
  WorkModel b = call_work(ruled, copy_spec(), dir / "bad.py", notes);
  EXPECT_FALSE(b.flops);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("ValueError"), std::string::npos) << notes.back();
}
