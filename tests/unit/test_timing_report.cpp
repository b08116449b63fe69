// Timing rules applied to a whole TimingResult, option validation, and the Markdown/JSON
// renderings (src/stages/timing/timing.hpp, timing_report.hpp), on synthetic measurements.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "stages/timing/gpu_duration.hpp"
#include "stages/timing/timing.hpp"
#include "report/timing_report.hpp"

using namespace kprof;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bool any_contains(const std::vector<std::string>& v, const std::string& part) {
  for (const auto& s : v)
    if (contains(s, part)) return true;
  return false;
}

/// A result with `calls` call times (ms) and, per call, one kernel of `kernel_ms` on `stream`
/// (the default stream is 7).
TimingResult synthetic(const std::vector<double>& calls, const std::vector<double>& kernel_ms, uint32_t stream = 7) {
  TimingResult r;
  r.call_ms = calls;
  r.call = summarize(calls);
  r.iters = static_cast<int>(calls.size());
  r.warmup_calls = 5;
  r.warmup_ms = 120;
  r.l2_bytes = 50u << 20;
  r.l2_flush_bytes = 100u << 20;
  r.restored = {"C"};
  Attribution a;
  a.per_call.resize(kernel_ms.size());
  for (size_t i = 0; i < kernel_ms.size(); ++i) {
    uint64_t t0 = 1000000000ull * (i + 1);
    a.per_call[i].push_back(KernelRecord{"vecAdd(float const*, float*, int)", t0,
                                         t0 + static_cast<uint64_t>(kernel_ms[i] * 1e6), stream, 0});
  }
  r.kernel.available = true;
  r.kernel.default_stream = 7u;
  r.kernel.summary = summarize_kernels(a, r.kernel.default_stream);
  r.sm_clock.before = 1980;
  r.sm_clock.after = 1965;
  r.sm_clock.min_seen = 1965;
  r.sm_clock.max_seen = 1980;
  r.sm_clock.max_mhz = 1980;
  apply_rules(r);
  return r;
}

/// Marks `r`'s GPU duration read: one kernel per call, these per-call sums (ms).
void set_gpu_duration(TimingResult& r, const std::vector<double>& sum_ms) {
  r.gpu_duration.available = true;
  r.gpu_duration.sum_ms = sum_ms;
  r.gpu_duration.sum = summarize(sum_ms);
  r.gpu_duration.median_kernels = 1;
}

}  // namespace

TEST(TimingResultRules, TwoMicrosecondKernelInTwentyMicrosecondCall) {
  TimingResult r = synthetic({0.020, 0.020, 0.021, 0.019}, {0.002, 0.002, 0.002, 0.002});
  EXPECT_TRUE(r.overhead_dominates);
  EXPECT_FALSE(r.kernels_exceed_call);
  EXPECT_FALSE(r.call_unstable);
  auto f = timing_findings(r);
  EXPECT_TRUE(any_contains(f, "Launch or host overhead dominates"));
  EXPECT_TRUE(any_contains(f, "10.0%"));  // 2 us of 20 us
}

TEST(TimingResultRules, KernelOnNonBlockingStreamExceedsCall) {
  TimingResult r = synthetic({0.010, 0.010, 0.010}, {0.100, 0.100, 0.100}, /*stream=*/12);
  EXPECT_TRUE(r.kernels_exceed_call);
  EXPECT_FALSE(r.overhead_dominates);
  auto f = timing_findings(r);
  EXPECT_TRUE(any_contains(f, "exceeds the call time"));
  EXPECT_TRUE(any_contains(f, "CUPTI ids 12"));
  EXPECT_TRUE(any_contains(f, "one after another"));  // serialized records: overlap not kept
}

TEST(TimingResultRules, OneStreamSaysNothingAboutSerialization) {
  TimingResult r = synthetic({0.020, 0.020, 0.020}, {0.015, 0.015, 0.015});
  EXPECT_FALSE(any_contains(timing_findings(r), "one after another"));
}

TEST(TimingResultRules, NoisyCallTimeIsUnstable) {
  TimingResult r = synthetic({0.9, 1.0, 1.1, 1.0}, {0.95, 0.95, 0.95, 0.95});
  EXPECT_TRUE(r.call_unstable);
  EXPECT_FALSE(r.kernel_unstable);
  EXPECT_TRUE(any_contains(timing_findings(r), "Call time is unstable"));
}

TEST(TimingResultRules, CleanMeasurementSaysSo) {
  TimingResult r = synthetic({1.00, 1.01, 0.99}, {0.95, 0.95, 0.95});
  auto f = timing_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(contains(f[0], "No timing issue"));
}

TEST(TimingResultRules, NoCuptiMeansNoKernelRules) {
  TimingResult r = synthetic({0.020, 0.020}, {0.002, 0.002});
  r.kernel = KernelTimeResult{};
  r.kernel.note = "CUPTI cannot collect kernel records: test";
  apply_rules(r);
  EXPECT_FALSE(r.overhead_dominates);
  EXPECT_FALSE(r.kernels_exceed_call);
  std::string md = timing_markdown(r);
  EXPECT_TRUE(contains(md, "Kernel time not available: CUPTI cannot collect kernel records: test"));
  nlohmann::json j = timing_json(r);
  EXPECT_FALSE(j["kernel_time"]["available"].get<bool>());
  EXPECT_FALSE(j["kernel_time"].contains("sum_ms"));
  EXPECT_NEAR(j["call_time_ms"]["median"].get<double>(), 0.020, 1e-12);
}

TEST(TimingReport, MarkdownShowsBothColumnsKernelsAndMethod) {
  TimingResult r = synthetic({0.020, 0.022, 0.021}, {0.002, 0.002, 0.002});
  r.notes.push_back("a note for the reader");
  std::string md = timing_markdown(r);
  EXPECT_TRUE(contains(md, "| Median | 21 us | 2 us |")) << md;
  EXPECT_TRUE(contains(md, "Call time (CUDA events)"));
  EXPECT_TRUE(contains(md, "Kernel time (CUPTI records, sum per call)"));
  EXPECT_TRUE(contains(md, "| Median | 21 us | 2 us | n/a |")) << md;  // no GPU duration read
  EXPECT_TRUE(contains(md, "GPU duration not available"));
  EXPECT_TRUE(contains(md, "kernels serialized"));  // the method is stated next to the numbers
  EXPECT_TRUE(contains(md, "`vecAdd`"));
  EXPECT_TRUE(contains(md, "| default |"));
  EXPECT_TRUE(contains(md, "a read of 100.00 MiB = 2 x 50.00 MiB L2")) << md;
  EXPECT_TRUE(contains(md, "Outputs restored before every call: C"));
  EXPECT_TRUE(contains(md, "1980 MHz before, 1965 MHz after"));
  EXPECT_TRUE(contains(md, "- a note for the reader"));
  EXPECT_TRUE(contains(md, "Launch or host overhead dominates"));
}

TEST(TimingReport, JsonCarriesStatisticsRulesAndSettings) {
  TimingResult r = synthetic({0.020, 0.022, 0.021}, {0.002, 0.003, 0.002}, 12);
  r.budget_hit = true;
  nlohmann::json j = timing_json(r);
  EXPECT_EQ(j["call_time_ms"]["n"].get<size_t>(), 3u);
  EXPECT_NEAR(j["call_time_ms"]["median"].get<double>(), 0.021, 1e-12);
  EXPECT_EQ(j["call_time_ms"]["per_call"].size(), 3u);
  EXPECT_NEAR(j["kernel_time"]["sum_ms"]["median"].get<double>(), 0.002, 1e-9);
  EXPECT_EQ(j["kernel_time"]["kernels"][0]["launches"].get<size_t>(), 3u);
  EXPECT_FALSE(j["kernel_time"]["kernels"][0]["streams"][0]["default"].get<bool>());
  EXPECT_EQ(j["kernel_time"]["other_streams"][0].get<uint32_t>(), 12u);
  // Programs can tell serialized records from concurrent ones (bench/RESULTS.md explains the choice).
  EXPECT_NE(j["kernel_time"]["source"].get<std::string>().find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos);
  EXPECT_TRUE(j["rules"]["overhead_dominates"].get<bool>());
  EXPECT_DOUBLE_EQ(j["rules"]["unstable_cv_threshold"].get<double>(), kUnstableCv);
  EXPECT_TRUE(j["settings"]["budget_hit"].get<bool>());
  EXPECT_EQ(j["settings"]["l2_flush_bytes"].get<size_t>(), 100u << 20);
  EXPECT_EQ(j["sm_clock_mhz"]["max"].get<unsigned>(), 1980u);
  EXPECT_FALSE(j["findings"].empty());
}

TEST(TimingReport, GpuDurationLeadsWhenReadAndRecordsOtherwise) {
  TimingResult r = synthetic({0.020, 0.022, 0.021}, {0.0025, 0.0025, 0.0025});
  r.gpu_duration.note = "CUPTI range profiler: enable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  auto rep = reported_kernel_time(r);  // not read: CUPTI's records
  ASSERT_TRUE(rep.has_value());
  EXPECT_STREQ(rep->label, "CUPTI");
  EXPECT_NEAR(rep->stats->median, 0.0025, 1e-9);
  EXPECT_TRUE(timing_json(r)["kernel_time_reported"] == "CUPTI");
  EXPECT_FALSE(timing_json(r)["gpu_duration"]["available"].get<bool>());
  EXPECT_TRUE(contains(timing_markdown(r), "INSUFFICIENT_PRIVILEGES"));

  set_gpu_duration(r, {0.002, 0.002, 0.0021});  // read: 0.5 us below the records, as on the H200
  rep = reported_kernel_time(r);
  ASSERT_TRUE(rep.has_value());
  EXPECT_STREQ(rep->label, "gpu__time_duration");
  EXPECT_EQ(rep->per_call_ms, &r.gpu_duration.sum_ms);
  nlohmann::json j = timing_json(r);
  EXPECT_EQ(j["kernel_time_reported"], "gpu__time_duration");
  EXPECT_NEAR(j["gpu_duration"]["sum_ms"]["median"].get<double>(), 0.002, 1e-12);
  EXPECT_EQ(j["gpu_duration"]["sum_ms"]["per_call"].size(), 3u);
  EXPECT_NE(j["gpu_duration"]["source"].get<std::string>().find("range profiler"), std::string::npos);
  EXPECT_TRUE(contains(timing_markdown(r), "| Median | 21 us | 2.5 us | 2 us |")) << timing_markdown(r);
  // The pass the reports lead with has its own clocks and discards (read in that pass).
  r.gpu_duration.calls = 4;
  r.gpu_duration.conditions = {{1980, 0}, {1980, 0}, {1980, 0}, {900, 0}};
  r.gpu_duration.discard.total = r.gpu_duration.discard.below_floor = 1;
  r.gpu_duration.discard.median_sm_mhz = 1980;
  r.clock_floor_mhz = 1485;
  j = timing_json(r);
  EXPECT_EQ(j["sampling"]["duration_pass"]["discarded"], 1);
  EXPECT_EQ(j["sampling"]["duration_pass"]["sm_clock_mhz_median"], 1980);
  EXPECT_TRUE(contains(timing_markdown(r), "1 of 4 discarded (1 below the 1485 MHz floor)")) << timing_markdown(r);
  EXPECT_TRUE(contains(timing_markdown(r), "GPU-duration pass: median 1980 MHz")) << timing_markdown(r);

  r.kernel.available = false;  // neither: the call time is all there is
  r.gpu_duration.available = false;
  EXPECT_FALSE(reported_kernel_time(r).has_value());
}

TEST(TimingReport, GpuDurationAtAnotherClockIsSetAsideForTheRecords) {
  // The H200's power-capped fp16 GEMM: 1605 MHz back to back (kernel-time pass), 1980 MHz in the
  // GPU-duration pass whose range profiler leaves ~1.7 ms of host time between calls.
  TimingResult r = synthetic({2.20, 2.21, 2.19}, {2.17, 2.18, 2.17});
  set_gpu_duration(r, {1.99, 1.98, 1.99});
  r.kernel_discard.median_sm_mhz = 1605;
  r.gpu_duration.discard.median_sm_mhz = 1980;
  r.gpu_duration.clock_mismatch = gpu_duration_clock_mismatch(r);
  EXPECT_TRUE(contains(r.gpu_duration.clock_mismatch, "1980 MHz against 1605 MHz")) << r.gpu_duration.clock_mismatch;
  auto rep = reported_kernel_time(r);
  ASSERT_TRUE(rep.has_value());
  EXPECT_STREQ(rep->label, "CUPTI");
  EXPECT_NEAR(rep->stats->median, 2.17, 1e-9);
  nlohmann::json j = timing_json(r);
  EXPECT_EQ(j["kernel_time_reported"], "CUPTI");
  EXPECT_TRUE(j["gpu_duration"]["clock_mismatch"].is_string());
  EXPECT_TRUE(contains(timing_markdown(r), "GPU duration set aside")) << timing_markdown(r);

  // Within 2% (1980 against 1965 MHz, one NVML step): the GPU duration leads.
  r.kernel_discard.median_sm_mhz = 1965;
  r.gpu_duration.clock_mismatch = gpu_duration_clock_mismatch(r);
  EXPECT_EQ(r.gpu_duration.clock_mismatch, "");
  EXPECT_STREQ(reported_kernel_time(r)->label, "gpu__time_duration");
  EXPECT_TRUE(timing_json(r)["gpu_duration"]["clock_mismatch"].is_null());
  // A clock unknown (no NVML): nothing to compare, the GPU duration leads.
  r.kernel_discard.median_sm_mhz.reset();
  EXPECT_EQ(gpu_duration_clock_mismatch(r), "");
}

TEST(TimingReport, CacheControlIsReportedWithTheCuptiVersion) {
  TimingResult r = synthetic({0.0072, 0.0071, 0.0072}, {0.0071, 0.0071, 0.0072});
  set_gpu_duration(r, {0.00669, 0.00669, 0.00672});
  // CUDA 13.0's libcupti: no L2 reset; the report says kprof's flush alone and how to get it.
  r.gpu_duration.cupti_version = 130001;
  nlohmann::json j = timing_json(r);
  EXPECT_EQ(j["gpu_duration"]["cache_control"], "none");
  EXPECT_TRUE(j["gpu_duration"]["cache_control_asked"].get<bool>());
  EXPECT_EQ(j["gpu_duration"]["cupti_version"], "13.0");
  std::string md = timing_markdown(r);
  EXPECT_TRUE(contains(md, "kprof's L2 flush between calls (CUPTI 13.0 has no cache control")) << md;
  EXPECT_TRUE(contains(md, "setup.sh --cupti")) << md;
  // PyPI's CUPTI 13.5: the L2 reset before each kernel, as ncu's --cache-control all.
  r.gpu_duration.cupti_version = 130500;
  r.gpu_duration.cache_control = true;
  j = timing_json(r);
  EXPECT_EQ(j["gpu_duration"]["cache_control"], "all");
  EXPECT_EQ(j["gpu_duration"]["cupti_version"], "13.5");
  md = timing_markdown(r);
  EXPECT_TRUE(contains(md, "CUPTI 13.5 reset the L2 before each kernel")) << md;
  EXPECT_FALSE(contains(md, "--cupti")) << md;
  // --no-l2-flush: not asked (the reset would undo the warm L2 asked for), whatever the version.
  r.gpu_duration.cache_control_asked = false;
  r.gpu_duration.cache_control = false;
  EXPECT_TRUE(contains(timing_markdown(r), "GPU duration cache control: none (--no-l2-flush)."));
  EXPECT_FALSE(timing_json(r)["gpu_duration"]["cache_control_asked"].get<bool>());
  // Not read: no cache-control sentence, the version unknown is null.
  r.gpu_duration.available = false;
  r.gpu_duration.cupti_version = 0;
  EXPECT_FALSE(contains(timing_markdown(r), "cache control"));
  EXPECT_TRUE(timing_json(r)["gpu_duration"]["cupti_version"].is_null());
}

TEST(CuptiCacheControl, VersionRuleAndTheExtendedEnableStruct) {
  // cupti_range_profiler.h: CUpti_CacheControl_Mode "since CUDA 13.4"; cuptiGetVersion's numbers.
  EXPECT_FALSE(cupti_has_cache_control(130001));  // CUDA 13.0
  EXPECT_FALSE(cupti_has_cache_control(130399));
  EXPECT_TRUE(cupti_has_cache_control(130400));
  EXPECT_TRUE(cupti_has_cache_control(130500));  // PyPI nvidia-cuda-cupti 13.5.25
  EXPECT_FALSE(cupti_has_cache_control(0));      // unknown
  EXPECT_EQ(cupti_version_text(130500), "13.5");
  EXPECT_EQ(cupti_version_text(130001), "13.0");
  EXPECT_EQ(cupti_version_text(0), "unknown");
  // CUPTI 13.4's struct: the 13.0 fields (4 x 8 bytes), then the 4-byte mode
  // (CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_Enable_Params, cacheControlMode) = 36).
  EXPECT_EQ(range_profiler_enable_size(false), 32u);
  EXPECT_EQ(range_profiler_enable_size(true), 36u);
}

TEST(TimingReport, StreamColumnNamesOtherStreamsAndUnknownDefault) {
  TimingResult r = synthetic({0.010, 0.010}, {0.100, 0.100}, 12);
  EXPECT_NE(timing_markdown(r).find("| other (CUPTI id 12) |"), std::string::npos);
  r.kernel.default_stream.reset();
  EXPECT_NE(timing_markdown(r).find("| CUPTI id 12 |"), std::string::npos);
}

TEST(TimingReport, JsonWritesMissingValuesAsNull) {
  TimingResult r;  // nothing measured
  r.call = summarize({});
  apply_rules(r);
  nlohmann::json j = timing_json(r);
  EXPECT_TRUE(j["call_time_ms"]["median"].is_null());
  EXPECT_TRUE(j["sm_clock_mhz"]["before"].is_null());
  EXPECT_NO_THROW((void)j.dump());
}

TEST(TimingOptionsValidate, RejectsOutOfRangeValuesWithTheFlag) {
  TimingOptions o;
  EXPECT_NO_THROW(validate(o));
  auto expect_usage = [](TimingOptions bad, const std::string& flag) {
    try {
      validate(bad);
      FAIL() << "expected an error mentioning " << flag;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage);
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  };
  TimingOptions a;
  a.iters = -1;  // 0 is valid: time until the noise target
  expect_usage(a, "--iters");
  TimingOptions n;
  n.noise_target = 0;
  expect_usage(n, "--noise-target");
  TimingOptions f;
  f.clock_floor_frac = 1.0;
  expect_usage(f, "--throttle-threshold");
  TimingOptions sets;
  sets.input_sets = 0;
  expect_usage(sets, "--input-sets");
  TimingOptions b;
  b.warmup_calls = -1;
  expect_usage(b, "--warmup");
  TimingOptions c;
  c.warmup_ms = -5;
  expect_usage(c, "--warmup-ms");
  TimingOptions d;
  d.call_timeout_ms = 0;
  expect_usage(d, "per-call time limit");
  TimingOptions e;
  e.warmup_calls = 0;
  EXPECT_NO_THROW(validate(e));  // --warmup 0 is allowed
}
