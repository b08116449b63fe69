// The timing stage on a real GPU (src/stages/timing/timing.hpp), driven through a small KernelInstance of
// this file that launches kprof's test kernels (tests/gpu/testing_kernels.cu): a spin kernel of
// known duration (%globaltimer) and an in-place x += 1. Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "device/cuda.hpp"
#include "device/device_array.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/env/nvml.hpp"
#include "gpu_guard.hpp"
#include "stages/timing/device_ops.hpp"
#include "gpu/testing_kernels.hpp"
#include "device/cupti_version.hpp"
#include "stages/timing/gpu_duration.hpp"
#include "stages/timing/stats.hpp"
#include "stages/timing/timing.hpp"
#include "report/timing_report.hpp"

using namespace kprof;

namespace {

constexpr const char* kSpinName = "kprof::test_kernels::spin_kernel(unsigned long)";

/// What one call() of the test instance launches.
enum class Mode {
  Spin,             ///< spin `ns` on the legacy default stream
  SpinNonBlocking,  ///< 1 us spin on the default stream + spin `ns` on a non-blocking stream
  AddOne,           ///< x += 1 on the default stream (in place)
  Read,             ///< reads x once, writes nothing (its time depends on L2 residency)
  BadLaunch,        ///< spin with 2048 threads per block: invalid configuration
};

/// A KernelInstance over kprof's test kernels: one float buffer "x" (an output), seeded values.
class TestInstance : public KernelInstance {
 public:
  TestInstance(Mode mode, uint64_t ns, size_t n = 1 << 16) : mode_(mode), ns_(ns), n_(n) {
    cuda_check(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "test stream");
  }
  ~TestInstance() override {
    if (x_) cudaFree(x_);
    cudaStreamDestroy(side_);
  }
  Implementation implementation() const override { return Implementation::CudaCpp; }
  std::string signature() const override { return "solve(float* x, int n)"; }
  void prepare(uint64_t seed) override {
    if (!x_) cuda_check(cudaMalloc(reinterpret_cast<void**>(&x_), n_ * sizeof(float)), "test buffer");
    host_ = initial(seed);
    cuda_check(cudaMemcpy(x_, host_.data(), n_ * sizeof(float), cudaMemcpyHostToDevice), "test fill");
  }
  std::vector<BufferView> buffers() const override { return {{"x", DType::F32, n_, x_, true}}; }
  std::vector<ScalarArg> scalars() const override { return {{"n", static_cast<double>(n_), true}}; }
  void call() override {
    switch (mode_) {
      case Mode::Spin:
        test_kernels::launch_spin(ns_, cudaStreamLegacy);
        break;
      case Mode::SpinNonBlocking:
        test_kernels::launch_spin(1000, cudaStreamLegacy);
        test_kernels::launch_spin(ns_, side_);
        break;
      case Mode::AddOne:
        test_kernels::launch_add_one(x_, n_, cudaStreamLegacy);
        break;
      case Mode::Read:
        test_kernels::launch_read(x_, n_, cudaStreamLegacy);
        break;
      case Mode::BadLaunch:
        test_kernels::launch_spin(ns_, cudaStreamLegacy, 2048);
        break;
    }
  }
  /// The values prepare(seed) writes.
  std::vector<float> initial(uint64_t seed) const {
    std::vector<float> v(n_);
    for (size_t i = 0; i < n_; ++i) v[i] = static_cast<float>((i * 7 + seed) % 1000) * 0.25f;
    return v;
  }
  std::vector<float> read_x() const {
    std::vector<float> v(n_);
    cuda_check(cudaMemcpy(v.data(), x_, n_ * sizeof(float), cudaMemcpyDeviceToHost), "test read");
    return v;
  }

 private:
  Mode mode_;
  uint64_t ns_;
  size_t n_;
  float* x_ = nullptr;
  cudaStream_t side_ = nullptr;
  std::vector<float> host_;
};

TimingOptions quick(int iters = 20) {
  TimingOptions o;
  o.warmup_calls = 3;
  o.iters = iters;
  o.seed = 11;
  return o;
}

}  // namespace

TEST(GpuTiming, KernelTimeMatchesAKnownSpinAndCallTimeCoversIt) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::Spin, 100000);  // 100 us
  TimingResult r = measure_timing(k, quick(), 0);
  ASSERT_TRUE(r.kernel.available) << r.kernel.note;
  EXPECT_EQ(r.iters, 20);
  EXPECT_EQ(r.warmup_calls, 3);
  const auto& s = r.kernel.summary;
  EXPECT_GE(s.sum.median, 0.099);  // %globaltimer may tick in ~1 us steps
  EXPECT_LT(s.sum.median, 0.110) << "a 100 us spin measured as " << s.sum.median << " ms";
  // Event resolution is about 0.5 us: the call includes the kernel.
  EXPECT_GE(r.call.median, s.sum.median - 0.001);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].name, kSpinName);
  EXPECT_DOUBLE_EQ(s.kernels[0].launches_per_call, 1.0);
  EXPECT_TRUE(r.kernel.default_stream.has_value());  // the marker memset was seen
  EXPECT_TRUE(s.other_streams.empty());
  EXPECT_EQ(r.kernel.outside_kernels, 0u);  // kprof's flush and restores are not kernels
  EXPECT_EQ(s.calls_without_kernels, 0u);
  EXPECT_FALSE(r.overhead_dominates);
  EXPECT_FALSE(r.kernels_exceed_call);
  EXPECT_GT(r.l2_flush_bytes, 0u);
  EXPECT_EQ(r.l2_flush_bytes, 2 * gpu_l2_bytes(0));
  if (Nvml::get()) {
    EXPECT_TRUE(r.sm_clock.before.has_value());
    // NVML sampled by a thread during the ~20 timed calls: clock, power and reasons.
    EXPECT_GE(r.during.samples, 1u) << r.during.note;
    EXPECT_GT(r.during.sm_mhz.n, 0u);
    EXPECT_GT(r.during.reason_samples, 0u);
  }
  std::string md = timing_markdown(r);  // the report shows names shortened for display
  EXPECT_NE(md.find(display_kernel_name(kSpinName)), std::string::npos) << md;
  if (Nvml::get()) EXPECT_NE(md.find("During the timed calls (NVML sampled every 2 ms"), std::string::npos) << md;
}

TEST(GpuTiming, GpuDurationReadsNcusMetricForEveryKernelOfACall) {
  // Phase 3: gpu__time_duration.sum per kernel through CUPTI's range profiler. CUPTI's serialized
  // records run 0.45-0.8 us longer than ncu's metric for 2-20 us kernels (bench/cupti_probe.cu):
  // the GPU duration of a 10 us spin must be the spin, not above the records, and lead the reports.
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::Spin, 10000);
  TimingResult r = measure_timing(k, quick(), 0);
  ASSERT_TRUE(r.kernel.available) << r.kernel.note;
  const GpuDurationResult& g = r.gpu_duration;
  if (!g.available && g.note.find("admin") != std::string::npos) GTEST_SKIP() << g.note;
  ASSERT_TRUE(g.available) << g.note;
  EXPECT_EQ(g.sum.n, 20u);
  EXPECT_EQ(g.median_kernels, 1u);
  EXPECT_GE(g.sum.median, 0.0099) << "a 10 us spin read as " << g.sum.median * 1e3 << " us";
  EXPECT_LE(g.sum.median, r.kernel.summary.sum.median + 0.0001)
      << "gpu__time_duration " << g.sum.median * 1e3 << " us, CUPTI records " << r.kernel.summary.sum.median * 1e3
      << " us";
  auto rep = reported_kernel_time(r);
  ASSERT_TRUE(rep.has_value());
  EXPECT_STREQ(rep->label, "gpu__time_duration");
  EXPECT_DOUBLE_EQ(rep->stats->median, g.sum.median);
  // Two kernels per call (one on a non-blocking stream): both ranges, summed.
  TestInstance two(Mode::SpinNonBlocking, 20000);
  TimingResult r2 = measure_timing(two, quick(10), 0);
  ASSERT_TRUE(r2.gpu_duration.available) << r2.gpu_duration.note;
  EXPECT_EQ(r2.gpu_duration.median_kernels, 2u);
  EXPECT_GE(r2.gpu_duration.sum.median, 0.0209);  // 1 us + 20 us
}

TEST(GpuTiming, KernelTimeOfAManyBlockKernelStaysInsideItsCallTime) {
  // 64 Mi floats, 262144 blocks of 256 threads. CUPTI's CONCURRENT_KERNEL tracing instruments
  // every block and slowed such a kernel past its own call time (H200: 250.6 us of CUPTI kernel
  // time against 241 us of CUDA-event call time measured without CUPTI); kprof's KIND_KERNEL
  // records must stay below the call time, which includes the launch on top of the kernel.
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::AddOne, 0, size_t{64} << 20);
  TimingResult r = measure_timing(k, quick(30), 0);
  ASSERT_TRUE(r.kernel.available) << r.kernel.note;
  const auto& s = r.kernel.summary;
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(r.kernel.outside_kernels, 0u);  // kprof's flush kernel is not counted anywhere
  EXPECT_LT(s.sum.median, r.call.median) << "kernel time " << s.sum.median * 1e3 << " us, call time "
                                         << r.call.median * 1e3 << " us";
  EXPECT_GT(s.sum.median, 0.5 * r.call.median);  // and it is the bulk of the call
}

TEST(GpuTiming, KernelOnANonBlockingStreamIsCountedByCupti) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::SpinNonBlocking, 200000);  // 200 us on its own stream
  TimingResult r = measure_timing(k, quick(10), 0);
  ASSERT_TRUE(r.kernel.available) << r.kernel.note;
  const auto& s = r.kernel.summary;
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(s.kernels[0].launches_per_call, 2.0);
  EXPECT_EQ(s.kernels[0].streams.size(), 2u);
  EXPECT_EQ(s.other_streams.size(), 1u);
  EXPECT_GE(s.busy.median, 0.200);
  // The events on the default stream do not wait for the non-blocking stream.
  EXPECT_LT(r.call.median, 0.200);
  EXPECT_TRUE(r.kernels_exceed_call);
  bool said = false;
  for (const auto& f : timing_findings(r)) said |= f.find("other than the legacy default stream") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(GpuTiming, RestoreGivesAnInPlaceKernelTheSameInputEveryCall) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::AddOne, 0);
  TimingOptions one = quick(5);
  one.input_sets = 1;  // every call on the seed's inputs
  TimingResult r = measure_timing(k, one, 0);
  EXPECT_EQ(r.restored, std::vector<std::string>{"x"});
  // Every call started from the prepared values, so the buffer holds initial + 1 after the last.
  std::vector<float> want = k.initial(11), got = k.read_x();
  for (auto& v : want) v += 1.0f;
  EXPECT_EQ(got, want);

  // Without restore the same kernel drifts: one increment per call (3 warm-up + 2 x 5 timed, and
  // the GPU-duration pass's calls when the range profiler ran).
  TimingOptions o = quick(5);
  o.restore_outputs = false;
  TimingResult r2 = measure_timing(k, o, 0);
  EXPECT_TRUE(r2.restored.empty());
  std::vector<float> drift = k.initial(11), got2 = k.read_x();
  const size_t duration_calls = r2.gpu_duration.calls;
  for (auto& v : drift) v += static_cast<float>(r2.warmup_calls + 2 * r2.iters + static_cast<int>(duration_calls));
  EXPECT_EQ(got2, drift);
}

TEST(GpuTiming, L2FlushMakesAnL2SizedKernelSlower) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  // A buffer of a third of the L2, only read: with the flush it comes from DRAM, without it stays
  // in L2 from the previous call (restore off, so no copy competes for L2). (An in-place kernel
  // is a poor probe: on the H200, x += 1 over a third of the L2 ran only 4% faster with a warm L2,
  // between CUDA events without CUPTI; bench/cupti_probe.cu, 2026-11-29.)
  const size_t n = gpu_l2_bytes(0) / 3 / sizeof(float);
  TestInstance k(Mode::Read, 0, n);
  TimingOptions o = quick(30);
  o.restore_outputs = false;
  TimingResult flushed = measure_timing(k, o, 0);
  o.l2_flush = false;
  TimingResult warm = measure_timing(k, o, 0);
  ASSERT_TRUE(flushed.kernel.available && warm.kernel.available);
  EXPECT_EQ(warm.l2_flush_bytes, 0u);
  EXPECT_GT(flushed.kernel.summary.sum.median, 1.1 * warm.kernel.summary.sum.median)
      << "flushed " << flushed.kernel.summary.sum.median << " ms vs warm L2 " << warm.kernel.summary.sum.median
      << " ms";
  EXPECT_GT(flushed.call.median, warm.call.median);  // the call time (no CUPTI) sees it too
}

TEST(GpuTiming, GpuDurationResetsTheL2WithCupti134AndNotWithoutL2Flush) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  // A read of a third of the L2, timed by the range profiler alone, call after call with nothing
  // in between: the data stays in L2 unless CUPTI resets it before each kernel (CUPTI 13.4+ and
  // asked). The timer asked for no reset reads the warm time, as --no-l2-flush wants.
  const size_t n = gpu_l2_bytes(0) / 3 / sizeof(float);
  DeviceArray x(n * sizeof(float), "the read kernel's buffer");
  cuda_check(cudaMemset(x.get(), 0, n * sizeof(float)), "zeroing");
  auto median_ns = [&](bool reset) {
    GpuDurationTimer t(0, reset);
    std::vector<double> v;
    for (int i = 0; i < 25; ++i) {
      t.begin();
      cuda_check(test_kernels::launch_read(static_cast<const float*>(x.get()), n, cudaStreamLegacy), "read");
      cuda_check(cudaDeviceSynchronize(), "read");
      auto k = t.end();
      if (k.size() == 1 && i >= 5) v.push_back(k[0].ns);
    }
    EXPECT_EQ(t.cache_control(), reset && cupti_has_cache_control(cupti_api_version()));
    EXPECT_EQ(t.cupti_version(), cupti_api_version());
    return summarize(v).median;
  };
  const double warm = median_ns(false), maybe_cold = median_ns(true);
  const uint32_t v = cupti_api_version();
  if (cupti_has_cache_control(v))
    EXPECT_GT(maybe_cold, 1.1 * warm) << "CUPTI " << cupti_version_text(v) << ": reset " << maybe_cold << " ns vs none "
                                      << warm << " ns";
  else
    EXPECT_LT(maybe_cold, 1.1 * warm) << "CUPTI " << cupti_version_text(v) << ": asked " << maybe_cold << " ns vs none "
                                      << warm << " ns";
}

TEST(GpuTiming, TimeBudgetStopsALongKernelEarly) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::Spin, 20000000);  // 20 ms
  TimingOptions o = quick(100);
  o.warmup_calls = 1;
  o.budget_ms = 200;
  o.min_iters = 3;
  o.kernel_time = false;
  TimingResult r = measure_timing(k, o, 0);
  EXPECT_TRUE(r.budget_hit);
  EXPECT_GE(r.iters, 3);
  EXPECT_LT(r.iters, 20);
  EXPECT_FALSE(r.kernel.available);
}

TEST(GpuTiming, RotatedInputSetsEndOnSetOneAndKeepItsOutputs) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::AddOne, 0);
  TimingOptions o = quick(6);
  // Warm-up by time, as kprof's default (100 ms): after 3 calls an idle H200 was still raising its
  // clock from 345 MHz, so the rotated calls ran slower than the identical ones timed after them.
  o.warmup_calls.reset();
  o.keep_last_outputs = true;
  TimingResult r = measure_timing(k, o, 0);
  EXPECT_EQ(r.rotation.sets, 3);
  EXPECT_EQ(r.rotation.seeds, (std::vector<uint64_t>{11, 12, 13}));
  ASSERT_TRUE(r.last_outputs.has_value());
  EXPECT_EQ(r.last_outputs->seed, 12u);  // the last kernel-time call ran on set 1
  // x += 1 on set 1's inputs: the kept outputs are initial(12) + 1.
  std::vector<float> want = k.initial(12);
  for (auto& v : want) v += 1.0f;
  ASSERT_EQ(r.last_outputs->outputs.size(), 1u);
  std::vector<float> got(want.size());
  std::memcpy(got.data(), r.last_outputs->outputs[0].bytes.data(), got.size() * sizeof(float));
  EXPECT_EQ(got, want);
  EXPECT_TRUE(r.memo.ran);
  EXPECT_FALSE(r.memo.suspected) << r.memo.identical_median_ms << " vs " << r.memo.rotated_median_ms;
}

TEST(GpuTiming, NoiseTargetStopsAStableKernelEarly) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::Spin, 100000);  // 100 us: steady to well under 0.5%
  TimingOptions o = quick(0);
  TimingResult r = measure_timing(k, o, 0);
  EXPECT_EQ(r.stopped_by, "noise target");
  EXPECT_LE(r.call_rel_stderr, o.noise_target);
  EXPECT_GE(r.call.n, static_cast<size_t>(o.min_iters));
  EXPECT_LT(r.iters, 2000);
  ASSERT_TRUE(r.kernel.available);
  EXPECT_EQ(r.kernel.summary.sum_ms.size() + r.kernel_discard.total, static_cast<size_t>(r.iters));
  if (Nvml::get()) {
    EXPECT_TRUE(r.clock_floor_mhz.has_value());
    EXPECT_TRUE(r.call_discard.median_sm_mhz.has_value());
  }
  EXPECT_EQ(r.integrity.verdict, IntegrityStatus::Pass) << integrity_markdown(r.integrity);
}

TEST(GpuTiming, TimeBasedWarmupRunsAtLeastTheMinimum) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::Spin, 10000000);  // 10 ms
  TimingOptions o = quick(3);
  o.warmup_calls.reset();
  o.warmup_ms = 50;
  o.kernel_time = false;
  TimingResult r = measure_timing(k, o, 0);
  // 50 ms of warm-up at ~10 ms (or a little more) per call: more calls than the minimum of 3.
  EXPECT_GT(r.warmup_calls, o.min_warmup_calls);
  EXPECT_GE(r.warmup_ms, 50.0);
}

TEST(GpuTiming, LaunchErrorFailsClearly) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::BadLaunch, 1000);
  try {
    measure_timing(k, quick(3), 0);
    FAIL() << "an invalid launch configuration must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    EXPECT_NE(std::string(e.what()).find("kernel launch failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("warm-up call 1"), std::string::npos) << e.what();
  }
}

TEST(GpuTiming, HungKernelHitsThePerCallLimit) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TestInstance k(Mode::Spin, 2000000000ull);  // 2 s: "hangs" against a 100 ms limit
  TimingOptions o = quick(3);
  o.call_timeout_ms = 100;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    measure_timing(k, o, 0);
    FAIL() << "a call past the per-call limit must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    EXPECT_NE(std::string(e.what()).find("did not finish within the per-call limit of 100 ms"), std::string::npos)
        << e.what();
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited, 1.5) << "gave up after " << waited << " s, not after the 100 ms limit";
  EXPECT_TRUE(gpu_left_busy());
  cuda_check(cudaDeviceSynchronize(), "letting the 2 s spin finish before the next test");
}
