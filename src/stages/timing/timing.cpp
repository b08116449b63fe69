#include "stages/timing/timing.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/env/nvml.hpp"
#include "stages/timing/cupti_session.hpp"
#include "stages/timing/device_ops.hpp"
#include "device/l2_flush.hpp"

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The marker memset that reveals the legacy default stream's CUPTI id (marker_stream_id).
constexpr uint64_t kMarkerBytes = 4;
constexpr uint32_t kMarkerValue = 0x6b;

/// Calls the kernel between kprof's restore/flush steps.
class Driver {
 public:
  Driver(KernelInstance& k, const TimingOptions& o, int gpu, OutputSnapshot* snap, L2Flusher& flush)
      : k_(k), o_(o), gpu_(gpu), snap_(snap), flush_(flush) {}

  /// Restores outputs, flushes L2 and waits for both (outside every timed window).
  void between_calls() {
    if (snap_) snap_->restore(cudaStreamLegacy);
    flush_.flush(cudaStreamLegacy);
    cuda_check(cudaDeviceSynchronize(), "waiting for kprof's restore/flush between timed calls");
  }

  /// The host call plus its launch check (inside the timed window).
  void call(const std::string& what) {
    k_.call();
    check_launch(what, k_.take_launch_error());
  }

  /// Waits (bounded) until the call's GPU work, on any stream, is done.
  void wait(const std::string& what) { wait_device_idle(gpu_, o_.call_timeout_ms, what); }

  void full_call(const std::string& what) {
    between_calls();
    call(what);
    wait(what);
  }

 private:
  KernelInstance& k_;
  const TimingOptions& o_;
  int gpu_;
  OutputSnapshot* snap_;
  L2Flusher& flush_;
};

void reset_persisting_l2() {
  if (cudaCtxResetPersistingL2Cache() != cudaSuccess) cudaGetLastError();
}

/// Warm-up by count or by time (TimingOptions); fills r.warmup_calls / r.warmup_ms.
void warm_up(Driver& d, const TimingOptions& o, TimingResult& r) {
  const auto t0 = Clock::now();
  int n = 0;
  auto what = [&n] { return fmt::format("warm-up call {}", n + 1); };
  if (o.warmup_calls) {
    for (; n < *o.warmup_calls; ++n) d.full_call(what());
  } else {
    Clock::time_point first_done;
    while (true) {
      d.full_call(what());
      if (++n == 1) first_done = Clock::now();
      if (n >= o.min_warmup_calls && ms_since(first_done) >= o.warmup_ms) break;
    }
  }
  r.warmup_calls = n;
  r.warmup_ms = ms_since(t0);
}

/// Reads the SM clock through NVML into an SmClockRecord (max clock at construction, min/max of
/// every sample); without NVML every value stays unset and the record's note says why.
class ClockSampler {
 public:
  ClockSampler(int gpu, SmClockRecord& c) : gpu_(gpu), c_(c) {
    std::string why;
    nvml_ = Nvml::get(&why);
    if (!nvml_) {
      c_.note = "SM clock not recorded: " + why;
      return;
    }
    if (auto clk = nvml_->clocks(gpu)) c_.max_mhz = clk->sm_max_mhz;
    power_limit_w_ = nvml_->power_limit_w(gpu);
    if (std::getenv("CUDA_VISIBLE_DEVICES"))
      c_.note = fmt::format(
          "SM clock read from NVML GPU {}; CUDA_VISIBLE_DEVICES is set, so NVML's "
          "GPU {} may not be CUDA device {}",
          gpu, gpu, gpu);
  }
  std::optional<unsigned> sample() {
    if (!nvml_) return std::nullopt;
    auto v = nvml_->sm_clock_mhz(gpu_);
    if (v) {
      c_.min_seen = c_.min_seen ? std::min(*c_.min_seen, *v) : *v;
      c_.max_seen = c_.max_seen ? std::max(*c_.max_seen, *v) : *v;
    }
    return v;
  }
  /// The reader for the background sampler; empty without NVML.
  std::function<NvmlSample()> reader() const {
    if (!nvml_) return {};
    Nvml* n = nvml_;
    int g = gpu_;
    return [n, g] { return n->sample(g); };
  }
  std::optional<double> power_limit_w() const { return power_limit_w_; }

 private:
  int gpu_;
  SmClockRecord& c_;
  Nvml* nvml_ = nullptr;
  std::optional<double> power_limit_w_;
};

/// Phase 1: CUDA events around each call; stops at options.iters or the time budget.
void phase_call_time(Driver& d, const TimingOptions& o, TimingResult& r, int gpu) {
  EventPair ev;
  ClockSampler clocks(gpu, r.sm_clock);
  reset_persisting_l2();
  r.sm_clock.before = clocks.sample();
  std::unique_ptr<BackgroundSampler> during;
  if (auto read = clocks.reader()) {
    during = std::make_unique<BackgroundSampler>(read, kClockSamplePeriodMs);
    during->start();
  }
  const int floor_iters = min_timed_calls(o);
  const auto t0 = Clock::now();
  for (int i = 0; i < o.iters; ++i) {
    if (i >= floor_iters && ms_since(t0) >= o.budget_ms) {
      r.budget_hit = true;
      break;
    }
    // Messages built before the window, so no allocation lands inside it.
    const std::string what = fmt::format("timed call {}", i + 1);
    const std::string rec_start = "cudaEventRecord (start of " + what + ")";
    const std::string rec_stop = "cudaEventRecord (end of " + what + ")";
    d.between_calls();
    cuda_check(cudaEventRecord(ev.start, cudaStreamLegacy), rec_start);
    d.call(what);
    cuda_check(cudaEventRecord(ev.stop, cudaStreamLegacy), rec_stop);
    d.wait(what);
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime (" + what + ")");
    r.call_ms.push_back(ms);
    if (i + 1 < o.iters) clocks.sample();
  }
  if (during) {
    during->stop();
    r.during = summarize_clock_samples(during->samples(), during->period_ms(), clocks.power_limit_w());
  } else {
    r.during.note = r.sm_clock.note.empty() ? "NVML not available" : r.sm_clock.note;
  }
  r.sm_clock.after = clocks.sample();
  r.iters = static_cast<int>(r.call_ms.size());
  r.call = summarize(r.call_ms);
}

/// Phase 2: the same number of calls with CUPTI on; never throws for CUPTI's own failures.
void phase_kernel_time(Driver& d, TimingResult& r) {
  KernelTimeResult& kt = r.kernel;
  std::unique_ptr<CuptiSession> session;
  try {
    session = std::make_unique<CuptiSession>();
  } catch (const Error& e) {
    kt.note = std::string(e.what()) + (e.hint().empty() ? "" : " (" + e.hint() + ")");
    return;
  }
  DeviceArray marker_mem(kMarkerBytes, "kprof's stream marker");
  void* marker = marker_mem.get();
  cuda_check(cudaMemsetAsync(marker, static_cast<int>(kMarkerValue), kMarkerBytes, cudaStreamLegacy),
             "kprof's stream marker memset");
  cuda_check(cudaDeviceSynchronize(), "kprof's stream marker memset");
  reset_persisting_l2();
  std::vector<CallWindow> windows;
  for (int i = 0; i < r.iters; ++i) {
    const std::string what = fmt::format("timed call {} (kernel-time phase)", i + 1);
    d.between_calls();
    CallWindow w;
    w.begin_ns = CuptiSession::now_ns();
    d.call(what);
    d.wait(what);
    w.end_ns = CuptiSession::now_ns();
    windows.push_back(w);
  }
  CuptiRecords rec;
  try {
    rec = session->finish();
  } catch (const Error& e) {
    kt.note = e.what();
    return;
  }
  kt.available = true;
  drop_kernels_named(rec.kernels, kL2FlushKernelName);  // kprof's own flush between calls
  kt.default_stream = marker_stream_id(rec.memsets, kMarkerBytes, kMarkerValue);
  Attribution a = attribute_kernels(rec.kernels, rec.apis, windows);
  kt.by_correlation = a.by_correlation;
  kt.by_time = a.by_time;
  kt.outside_kernels = a.outside.size();
  std::set<std::string> outside;
  for (const auto& k : a.outside) outside.insert(k.name);
  kt.outside_names.assign(outside.begin(), outside.end());
  kt.summary = summarize_kernels(a, kt.default_stream);
  if (!kt.default_stream)
    r.notes.push_back("CUPTI did not report kprof's marker memset: kernels on other streams cannot be told apart");
  if (rec.dropped)
    r.notes.push_back(fmt::format("CUPTI dropped {} activity records: kernel time may be low", rec.dropped));
  if (rec.no_timestamp)
    r.notes.push_back(fmt::format("CUPTI could not time {} kernel executions (not counted)", rec.no_timestamp));
  if (kt.outside_kernels)
    r.notes.push_back(fmt::format("{} kernel executions ran outside every call (not counted): {}", kt.outside_kernels,
                                  fmt::join(kt.outside_names, ", ")));
  const size_t empty = kt.summary.calls_without_kernels;
  if (empty == windows.size() && !windows.empty())
    r.notes.push_back(
        "CUPTI saw no kernel launched by any call: does the kernel function launch one "
        "(or does it only run host code)?");
  else if (empty)
    r.notes.push_back(fmt::format("CUPTI saw no kernel in {} of {} calls", empty, windows.size()));
}

}  // namespace

void validate(const TimingOptions& o) {
  if (o.warmup_calls && *o.warmup_calls < 0)
    throw usage_error(fmt::format("--warmup {} is negative", *o.warmup_calls), "pass --warmup 0 or more calls");
  if (!(o.warmup_ms >= 0))
    throw usage_error(fmt::format("--warmup-ms {} is negative", o.warmup_ms), "pass a warm-up time >= 0 ms");
  if (o.iters < 1)
    throw usage_error(fmt::format("--iters {} is below 1", o.iters), "pass --iters 1 or more (default 100)");
  if (o.min_warmup_calls < 0 || o.min_iters < 1)
    throw usage_error("internal: negative minimum warm-up or iteration count");
  if (!(o.budget_ms > 0)) throw usage_error(fmt::format("timing budget {} ms is not positive", o.budget_ms));
  if (!(o.call_timeout_ms > 0))
    throw usage_error(fmt::format("per-call time limit {} ms is not positive", o.call_timeout_ms),
                      "pass a per-call limit in seconds > 0");
}

void apply_rules(TimingResult& r) {
  r.call_unstable = is_unstable(r.call);
  r.kernel_unstable = false;
  r.overhead_dominates = false;
  r.kernels_exceed_call = false;
  if (!r.kernel.available) return;
  const KernelTimeSummary& s = r.kernel.summary;
  r.kernel_unstable = is_unstable(s.sum);
  r.overhead_dominates = overhead_dominates(s.sum.median, r.call.median);
  r.kernels_exceed_call = kernels_exceed_call(s.busy.median, r.call.median);
}

TimingResult measure_timing(KernelInstance& kernel, const TimingOptions& options, int gpu) {
  validate(options);
  TimingResult r;
  r.options = options;
  if (options.prepare) kernel.prepare(options.seed);
  cuda_check(cudaDeviceSynchronize(), "preparing buffers for timing");

  std::unique_ptr<OutputSnapshot> snap;
  if (options.restore_outputs) {
    snap = std::make_unique<OutputSnapshot>(kernel.buffers());
    r.restored = snap->names();
    if (!snap->note().empty()) r.notes.push_back(snap->note());
  }
  r.l2_bytes = gpu_l2_bytes(gpu);
  L2Flusher flush(r.l2_bytes, options.l2_flush);
  r.l2_flush_bytes = flush.bytes();
  if (options.l2_flush && r.l2_flush_bytes == 0) r.notes.push_back("the GPU reports no L2 size: L2 not flushed");

  Driver d(kernel, options, gpu, snap.get(), flush);
  warm_up(d, options, r);
  if (r.warmup_calls == 0)
    r.notes.push_back(
        "no warm-up: the first timed call includes one-time costs (module loading, "
        "Triton compilation and autotuning)");
  phase_call_time(d, options, r, gpu);
  if (options.kernel_time)
    phase_kernel_time(d, r);
  else
    r.kernel.note = "kernel time not measured (disabled)";
  if (!flush.note().empty()) r.notes.push_back(flush.note());
  if (!r.sm_clock.note.empty()) r.notes.push_back(r.sm_clock.note);
  apply_rules(r);
  return r;
}

}  // namespace kprof
