// The NVML sampling during the timed calls (stages/timing/clock_sampler.hpp) and kprof's timing against
// ncu's (stages/analysis/clock_check.hpp), on the numbers measured on the H200 on 2026-12-01 for the
// cuBLAS fp16 GEMM 8192^3 (/work/gpu-data/run1: gemm_clocks.json, tensor_gemm_ncu.csv).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "stages/analysis/clock_check.hpp"
#include "stages/env/nvml.hpp"
#include "stages/timing/clock_sampler.hpp"
#include "report/timing_report.hpp"

using namespace kprof;

namespace {

ClockSample sample(double t, unsigned mhz, double watts, uint64_t reasons) {
  ClockSample c;
  c.t_ms = t;
  c.v.sm_mhz = mhz;
  c.v.mem_mhz = 2619;
  c.v.power_w = watts;
  c.v.reasons = reasons;
  c.v.temp_c = 44 + static_cast<unsigned>(t) % 10;
  return c;
}

/// 74 samples like the GEMM's: SW power cap (0x4) in 18, clock 1410-1980 MHz.
std::vector<ClockSample> gemm_samples() {
  std::vector<ClockSample> s;
  for (int i = 0; i < 74; ++i) {
    bool capped = i % 4 == 0 && i < 72;  // 18 samples
    s.push_back(sample(2.0 * i, capped ? 1410 : 1890, capped ? 179 : 92, capped ? 0x4 : 0x0));
  }
  return s;
}

}  // namespace

TEST(NvmlReasons, NamesAndThrottling) {
  EXPECT_EQ(nvml_reason_names(0), "none");
  EXPECT_EQ(nvml_reason_names(0x4), "SW power cap");
  EXPECT_EQ(nvml_reason_names(0x1 | 0x20), "GPU idle, SW thermal slowdown");
  EXPECT_EQ(nvml_reason_names(0x10000), "0x10000");
  EXPECT_TRUE(nvml_reasons_throttle(0x4));
  EXPECT_TRUE(nvml_reasons_throttle(0x40));
  EXPECT_FALSE(nvml_reasons_throttle(0x1 | 0x2 | 0x10));
}

TEST(ClockSamples, SummaryCountsReasonsAndRanges) {
  ClockSummary s = summarize_clock_samples(gemm_samples(), 2.0, 700.0);
  EXPECT_EQ(s.samples, 74u);
  EXPECT_DOUBLE_EQ(*s.sm_mhz.min, 1410);
  EXPECT_DOUBLE_EQ(*s.sm_mhz.max, 1890);
  EXPECT_EQ(s.throttled, 18u);
  EXPECT_EQ(s.reason_counts.at(0x4), 18u);
  EXPECT_DOUBLE_EQ(s.span_ms, 146.0);
  EXPECT_EQ(reason_text(s), "SW power cap in 18 of 74 samples");
  std::string line = during_text(s);
  EXPECT_NE(line.find("74 samples"), std::string::npos) << line;
  EXPECT_NE(line.find("against a 700 W limit"), std::string::npos) << line;
  nlohmann::json j = during_json(s);
  EXPECT_EQ(j["reasons"]["SW power cap"], 18);
  EXPECT_EQ(j["throttled_samples"], 18);
}

TEST(ClockSamples, NothingSampledSaysWhy) {
  ClockSummary s = summarize_clock_samples({}, 2.0, std::nullopt);
  EXPECT_EQ(s.samples, 0u);
  EXPECT_NE(during_text(s).find("not sampled"), std::string::npos);
  EXPECT_EQ(reason_text(s), "clock event reasons not readable");
}

TEST(BackgroundSampler, SamplesOnItsOwnThreadUntilStopped) {
  std::atomic<int> calls{0};
  BackgroundSampler b(
      [&] {
        ++calls;
        NvmlSample s;
        s.sm_mhz = 1980;
        return s;
      },
      1.0);
  b.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  b.stop();
  int n = calls.load();
  EXPECT_GE(n, 5);  // ~30 at 1 ms; a loaded CI machine still reaches a few
  EXPECT_EQ(b.samples().size(), static_cast<size_t>(n));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(calls.load(), n);  // stopped: no more calls
  for (size_t i = 1; i < b.samples().size(); ++i) EXPECT_GE(b.samples()[i].t_ms, b.samples()[i - 1].t_ms);
}

TEST(ClockCheck, TheGemmCaseIsBeyondNoiseAndNotExplainedByTheClock) {
  ClockCheckInput in;
  in.kprof_ms = 1.670;  // median of 100 back-to-back calls
  in.kprof_std_ms = 0.01;
  in.ncu_ms = 1.428576;     // ncu's one call
  in.ncu_cycles = 2233861;  // gpc__cycles_elapsed.max
  in.ncu_hz = 1.545e9;
  in.during = summarize_clock_samples(gemm_samples(), 2.0, 700.0);
  ClockCheck c = check_clocks(in);
  EXPECT_TRUE(c.beyond_noise);
  EXPECT_NEAR(c.gap_pct, 16.9, 0.1);
  ASSERT_TRUE(c.cycle_gap_pct);
  EXPECT_GT(*c.cycle_gap_pct, 30);  // 1.670 ms x ~1765 MHz = 2.95 M cycles against 2.23 M
  EXPECT_FALSE(c.clocks_explain);
  EXPECT_NE(c.text.find("does not explain"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("SW power cap in 18 of 74 samples"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("throttled during kprof's calls"), std::string::npos) << c.text;
}

TEST(ClockCheck, NcusCacheFlushIsAllowedWhenKprofReadsBelow) {
  // The H200's 7 k-cycle spin: kprof's GPU duration 5.056 us, ncu's one call 5.248 us (-3.7%).
  ClockCheckInput in;
  in.kprof_ms = 0.005056;
  in.kprof_std_ms = 0.00003;
  in.kprof_label = "gpu__time_duration";
  in.ncu_ms = 0.005248;
  ClockCheck c = check_clocks(in);
  EXPECT_TRUE(c.cache_flush_allowed);
  EXPECT_FALSE(c.beyond_noise) << c.text;  // 0.192 us < 0.03 + 0.105 + 0.25 us
  EXPECT_NEAR(c.tolerance_ms, 0.00003 + 0.02 * 0.005248 + kNcuCacheFlushMs, 1e-12);
  EXPECT_NE(c.text.find("per kernel for ncu's flush of all GPU caches"), std::string::npos) << c.text;
  // Two kernels per call: two flushes allowed.
  in.ncu_launches = 2;
  EXPECT_NEAR(check_clocks(in).tolerance_ms, 0.00003 + 0.02 * 0.005248 + 2 * kNcuCacheFlushMs, 1e-12);
  // kprof above ncu by as much: the flush cannot explain that, beyond noise.
  in.ncu_launches = 1;
  std::swap(in.kprof_ms, in.ncu_ms);
  ClockCheck above = check_clocks(in);
  EXPECT_FALSE(above.cache_flush_allowed);
  EXPECT_TRUE(above.beyond_noise) << above.text;
  EXPECT_EQ(above.text.find("flush of all GPU caches"), std::string::npos) << above.text;
}

TEST(ClockCheck, WithinNoiseAndExplainedByTheClock) {
  ClockCheckInput in;
  in.kprof_ms = 0.2360;
  in.kprof_std_ms = 0.002;
  in.ncu_ms = 0.2365;
  ClockCheck same = check_clocks(in);
  EXPECT_FALSE(same.beyond_noise);
  EXPECT_NE(same.text.find("within noise"), std::string::npos) << same.text;

  // 10% slower at a 10% lower clock: the same number of cycles.
  in.kprof_ms = 1.100;
  in.ncu_ms = 1.000;
  in.ncu_cycles = 1.98e6;  // 1 ms at 1980 MHz
  std::vector<ClockSample> s;
  for (int i = 0; i < 10; ++i) s.push_back(sample(i, 1800, 300, 0));
  in.during = summarize_clock_samples(s, 2.0, 700.0);
  ClockCheck c = check_clocks(in);
  EXPECT_TRUE(c.beyond_noise);
  EXPECT_TRUE(c.clocks_explain);
  EXPECT_NE(c.text.find("the SM clock explains the gap"), std::string::npos) << c.text;
}
