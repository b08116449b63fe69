// The timing stage's per-call clock conditions and discard rule (stages/timing/call_conditions.hpp)
// and its integrity checks (stages/timing/integrity.hpp), on synthetic samples and results.
#include <gtest/gtest.h>

#include "stages/env/nvml.hpp"
#include "stages/results/versions.hpp"
#include "stages/timing/call_conditions.hpp"
#include "stages/timing/integrity.hpp"
#include "stages/timing/timing.hpp"

using namespace kprof;

namespace {

ClockSample at(double t, unsigned mhz, uint64_t reasons = 0) {
  ClockSample s;
  s.t_ms = t;
  s.v.sm_mhz = mhz;
  s.v.reasons = reasons;
  return s;
}

constexpr uint64_t kPowerCap = 0x4;  // nvmlClocksEventReasonSwPowerCap

}  // namespace

TEST(CallConditions, SamplesInsideTheWindowAndTheReadAfterCount) {
  std::vector<ClockSample> samples = {at(0.0, 1980), at(2.0, 1400, kPowerCap), at(4.0, 1980), at(6.0, 1980)};
  std::vector<SampleWindow> windows = {{1.5, 2.5}, {3.0, 3.5}, {5.0, 7.0}};
  std::vector<NvmlSample> after(3);
  after[1].sm_mhz = 1950;
  after[2].sm_mhz = 1700;
  auto c = conditions_per_call(windows, after, samples);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(*c[0].sm_mhz, 1400u);  // the sample at 2 ms lies inside call 0
  EXPECT_TRUE(nvml_reasons_throttle(*c[0].reasons));
  EXPECT_EQ(*c[1].sm_mhz, 1950u);  // no sample inside: the read after it
  EXPECT_FALSE(c[1].reasons.has_value());
  EXPECT_EQ(*c[2].sm_mhz, 1700u);  // the lower of the sample at 6 ms and the read after
}

TEST(CallConditions, TheFloorDiscardsSlowCallsAndThrottledOnlyOnRequest) {
  std::vector<CallConditions> calls(30);
  for (auto& c : calls) c.sm_mhz = 1980;
  calls[3].sm_mhz = 1100;  // below 75% of 1980 = 1485
  calls[7].reasons = kPowerCap;
  auto floor = clock_floor_mhz(1980u, kDefaultClockFloorFrac);
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(*floor, 1485u);
  DiscardSummary d;
  auto keep = keep_calls(calls, floor, false, 20, d);
  EXPECT_FALSE(keep[3]);
  EXPECT_TRUE(keep[7]);  // throttled but kept: --discard-throttled is off
  EXPECT_EQ(d.total, 1u);
  EXPECT_EQ(d.below_floor, 1u);
  EXPECT_EQ(d.throttled_seen, 1u);
  EXPECT_EQ(*d.median_sm_mhz, 1980u);
  EXPECT_EQ(*d.min_sm_mhz, 1100u);
  keep = keep_calls(calls, floor, true, 20, d);
  EXPECT_FALSE(keep[7]);
  EXPECT_EQ(d.total, 2u);
  EXPECT_EQ(d.throttled, 1u);
  std::vector<double> ms(30, 1.0);
  ms[3] = 9.0;
  EXPECT_EQ(kept_values(ms, keep).size(), 28u);
}

TEST(CallConditions, TooFewLeftKeepsEveryCall) {
  std::vector<CallConditions> calls(25);
  for (auto& c : calls) {
    c.sm_mhz = 1980;
    c.reasons = kPowerCap;  // a kernel that throttles itself on every call
  }
  DiscardSummary d;
  auto keep = keep_calls(calls, 1485u, true, 20, d);
  EXPECT_TRUE(d.kept_all);
  EXPECT_EQ(std::count(keep.begin(), keep.end(), true), 25);
  EXPECT_FALSE(clock_floor_mhz(1980u, 0.0).has_value());  // --throttle-threshold 0
  EXPECT_FALSE(clock_floor_mhz(std::nullopt, 0.75).has_value());
}

TEST(Integrity, MemoizationAndNoKernelFailLibraryOnlyWarns) {
  TimingResult r;
  r.kernel.available = true;
  r.kernel.summary.sum_ms = {1.0, 1.0, 1.0};
  KernelNameStats k;
  k.name = "void at::native::vectorized_elementwise_kernel<4>";
  r.kernel.summary.kernels = {k};
  r.rotation.sets = 3;
  r.rotation.seeds = {42, 43, 44};
  r.memo.ran = true;
  r.memo.identical_calls = 10;
  r.memo.identical_median_ms = 0.01;
  r.memo.rotated_median_ms = 0.1;
  r.memo.suspected = true;
  Integrity i = timing_integrity(r);
  EXPECT_EQ(i.verdict, IntegrityStatus::Fail);
  auto find = [&](const std::string& n) {
    for (const auto& c : i.checks)
      if (c.name == n) return c;
    return IntegrityCheck{};
  };
  EXPECT_EQ(find("memoization").status, IntegrityStatus::Fail);
  EXPECT_EQ(find("library-only kernels").status, IntegrityStatus::Warn);
  EXPECT_EQ(find("input rotation").status, IntegrityStatus::Pass);
  EXPECT_EQ(find("kernels launched").status, IntegrityStatus::Pass);
  r.memo.suspected = false;
  EXPECT_EQ(timing_integrity(r).verdict, IntegrityStatus::Warn);
  r.kernel.summary.kernels[0].name = "poly(const float*, float*, int)";
  EXPECT_EQ(timing_integrity(r).verdict, IntegrityStatus::Pass);
  r.kernel.summary.calls_without_kernels = 3;
  EXPECT_EQ(timing_integrity(r).verdict, IntegrityStatus::Fail);
  r.kernel.summary.calls_without_kernels = 0;
  r.kernel.launched_after_return = 2;
  EXPECT_EQ(find("work after return").status, IntegrityStatus::Pass);  // `i` is the first result
  EXPECT_EQ(timing_integrity(r).verdict, IntegrityStatus::Fail);
  EXPECT_TRUE(is_library_kernel("sm90_xmma_gemm_f16f16_f32"));
  EXPECT_TRUE(is_library_kernel("nvjet_hsh_128x256"));
  EXPECT_FALSE(is_library_kernel("matmul_kernel"));
}

TEST(Integrity, AFailingVersionIsNamedByItsFailingCheckNotAWarning) {
  // As on the H200: the memoizing kernel's hit path launched no kernel in one call (a warning)
  // and identical inputs ran 4.19x faster (the failure).
  TimingResult t;
  t.integrity.checks = {{"kernels launched", IntegrityStatus::Warn, "no kernel in 1 of 20 calls"},
                        {"memoization", IntegrityStatus::Fail, "identical inputs 4.19x faster"}};
  t.integrity.settle();
  VersionRow row;
  row.status = VersionStatus::Pass;
  fill_timing_columns(row, t);
  EXPECT_EQ(row.status, VersionStatus::Fail);
  EXPECT_EQ(row.status_reason, "timing integrity: memoization: identical inputs 4.19x faster");
  EXPECT_EQ(row.integrity, "fail");
  EXPECT_EQ(row.integrity_issues.size(), 2u);
}

TEST(VersionRowTiming, KernelColumnAndBasisNameTheirSource) {
  TimingResult t;
  t.call_ms = {0.020, 0.021};
  t.call = summarize(t.call_ms);
  t.kernel.available = true;
  t.kernel.summary.sum_ms = {0.0105, 0.0106};
  t.kernel.summary.sum = summarize(t.kernel.summary.sum_ms);
  VersionRow records;
  records.profiled = true;
  fill_timing_columns(records, t);
  EXPECT_EQ(records.kernel_source, "CUPTI");
  EXPECT_NEAR(*records.kernel_ms, 0.01055, 1e-9);

  t.gpu_duration.available = true;  // the range profiler read ncu's metric: it leads
  t.gpu_duration.sum_ms = {0.0100, 0.0101};
  t.gpu_duration.sum = summarize(t.gpu_duration.sum_ms);
  VersionRow duration;
  duration.profiled = true;
  fill_timing_columns(duration, t);
  EXPECT_EQ(duration.kernel_source, "gpu__time_duration");
  EXPECT_NEAR(*duration.kernel_ms, 0.01005, 1e-9);
  EXPECT_EQ(duration.kernel_samples_ms, t.gpu_duration.sum_ms);

  std::vector<VersionRow> both = {duration, duration};
  EXPECT_NE(choose_time_basis(both).find("gpu__time_duration"), std::string::npos);
  EXPECT_NEAR(*both[0].time_ms, 0.01005, 1e-9);
  std::vector<VersionRow> mixed = {duration, records};
  EXPECT_NE(choose_time_basis(mixed).find("see each version's kernel_source"), std::string::npos);
  std::vector<VersionRow> old = {records};
  EXPECT_NE(choose_time_basis(old).find("CUPTI kernel records"), std::string::npos);
}
