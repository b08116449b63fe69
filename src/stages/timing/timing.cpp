#include "stages/timing/timing.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>
#include <tuple>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/env/nvml.hpp"
#include "stages/timing/call_conditions.hpp"
#include "stages/timing/clock_reader.hpp"
#include "stages/timing/cupti_session.hpp"
#include "stages/timing/driver.hpp"
#include "stages/timing/duration_pass.hpp"
#include "stages/timing/gpu_duration.hpp"
#include "stages/timing/input_sets.hpp"
#include "stages/timing/device_ops.hpp"
#include "device/l2_flush.hpp"

namespace kprof {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The marker memset that reveals the legacy default stream's CUPTI id (marker_stream_id).
constexpr uint64_t kMarkerBytes = 4;
constexpr uint32_t kMarkerValue = 0x6b;

/// Warm-up by count or by time (TimingOptions); fills r.warmup_calls / r.warmup_ms.
void warm_up(Driver& d, const TimingOptions& o, TimingResult& r) {
  std::tie(r.warmup_calls, r.warmup_ms) = warm_up_calls(d, o.warmup_calls, o.warmup_ms, o.min_warmup_calls);
}

/// Whether phase 1 may stop after `n` calls of which `kept` count; sets r.stopped_by when it does.
bool phase1_done(const TimingOptions& o, TimingResult& r, int n, const std::vector<double>& kept,
                 Clock::time_point t0) {
  return phase1_stop(o, n, kept, ms_since(t0), r.stopped_by, r.budget_hit);
}

/// One timed call between CUDA events on input set `set`; records its window and post-call read.
double event_call(Driver& d, EventPair& ev, ClockReader& clocks, PassConditions& pc, int set, const std::string& what) {
  const std::string rec_start = "cudaEventRecord (start of " + what + ")";
  const std::string rec_stop = "cudaEventRecord (end of " + what + ")";
  d.between_calls(set);
  SampleWindow w;
  w.begin_ms = pc.now();
  cuda_check(cudaEventRecord(ev.start, cudaStreamLegacy), rec_start);
  d.call(what);
  cuda_check(cudaEventRecord(ev.stop, cudaStreamLegacy), rec_stop);
  d.wait(what);
  w.end_ms = pc.now();
  pc.windows.push_back(w);
  pc.after.push_back(clocks.quick());
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime (" + what + ")");
  return ms;
}

/// Phase 1: CUDA events around each call, rotating over the input sets, until the noise target,
/// the count or the time limit; then the discard rule over its calls.
void phase_call_time(Driver& d, const TimingOptions& o, TimingResult& r, ClockReader& clocks) {
  EventPair ev;
  reset_persisting_l2();
  r.sm_clock.before = clocks.quick().sm_mhz;
  r.clock_floor_mhz = clock_floor_mhz(r.sm_clock.max_mhz, o.clock_floor_frac);
  PassConditions pc;
  pc.sampler = clocks.start_sampler();
  std::vector<double> all, kept;
  const auto t0 = Clock::now();
  for (int i = 0;; ++i) {
    // Messages built before the window, so no allocation lands inside it.
    const std::string what = fmt::format("timed call {}", i + 1);
    all.push_back(event_call(d, ev, clocks, pc, i % d.sets(), what));
    // The post-call read alone decides here; the pass's final rule also reads the samples inside the window.
    const CallConditions now{pc.after.back().sm_mhz, pc.after.back().reasons};
    if (!discards(now, r.clock_floor_mhz, o.discard_throttled)) kept.push_back(all.back());
    if (phase1_done(o, r, static_cast<int>(all.size()), kept, t0)) break;
  }
  r.call_conditions = pc.finish(&r.during, clocks.power_limit_w());
  if (!pc.sampler) r.during.note = r.sm_clock.note.empty() ? "NVML not available" : r.sm_clock.note;
  r.sm_clock.after = clocks.quick().sm_mhz;
  r.iters = static_cast<int>(all.size());
  auto keep = keep_calls(r.call_conditions, r.clock_floor_mhz, o.discard_throttled,
                         static_cast<size_t>(min_timed_calls(o)), r.call_discard);
  r.call_ms = kept_values(all, keep);
  for (size_t i = 0; i < all.size(); ++i)
    if (!keep[i]) r.call_ms_discarded.push_back(all[i]);
  r.call = summarize(r.call_ms);
  r.call_rel_stderr = median_rel_stderr(r.call_ms);
}

/// Identical inputs against the rotated first pass: a few calls on set 0 every time.
void memo_check(Driver& d, const TimingOptions& o, TimingResult& r, ClockReader& clocks) {
  MemoCheck& m = r.memo;
  if (!o.memo_check || d.sets() < 2 || r.call_ms.size() < 2) {
    m.note = d.sets() < 2 ? "one input set: identical against rotated inputs not compared" : "not run";
    return;
  }
  EventPair ev;
  PassConditions pc;  // no sampler: the first pass judged the clocks
  const int n = std::clamp(r.iters / 4, 10, 50);
  std::vector<double> same;
  for (int i = 0; i < n; ++i)
    same.push_back(event_call(d, ev, clocks, pc, 0, fmt::format("identical-input call {}", i + 1)));
  m.ran = true;
  m.identical_calls = n;
  m.identical_median_ms = summarize(same).median;
  m.rotated_median_ms = r.call.median;
  m.verdict = noise_verdict(same, r.call_ms);
  m.suspected = m.verdict && m.verdict->interval.lo > 1.0 && m.verdict->interval.ratio > 1 + kMemoGap;
}

/// Copies the outputs of the last call to the host (options.keep_last_outputs).
void keep_last_outputs(KernelInstance& k, const InputSets& sets, int set, TimingResult& r) {
  LastOutputs last;
  last.set = set;
  last.seed = sets.sets() > 0 ? sets.seed(set) : r.options.seed;
  for (const auto& v : k.buffers()) {
    if (!v.is_output) continue;
    last.outputs.push_back(copy_to_host(v.name, v.dtype, v.count, v.ptr));
    last.names.push_back(v.name);
  }
  r.last_outputs = std::move(last);
}

/// Phase 2: the same number of calls with CUPTI on, rotating so the last call is on set 1 (a set
/// the check computed the reference for); never throws for CUPTI's own failures.
void phase_kernel_time(Driver& d, KernelInstance& k, const InputSets& sets, const TimingOptions& o, TimingResult& r,
                       ClockReader& clocks) {
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
  PassConditions pc;
  pc.sampler = clocks.start_sampler();
  std::vector<CallWindow> windows;
  const int n = static_cast<int>(r.iters);
  int last_set = 0;
  for (int i = 0; i < n; ++i) {
    const std::string what = fmt::format("timed call {} (kernel-time phase)", i + 1);
    last_set = d.set_ending_on_one(i, n);
    d.between_calls(last_set);
    CallWindow w;
    SampleWindow sw;
    sw.begin_ms = pc.now();
    w.begin_ns = CuptiSession::now_ns();
    d.call(what);
    w.return_ns = CuptiSession::now_ns();
    d.wait(what);
    w.end_ns = CuptiSession::now_ns();
    sw.end_ms = pc.now();
    pc.windows.push_back(sw);
    pc.after.push_back(clocks.quick());
    windows.push_back(w);
  }
  if (o.keep_last_outputs) keep_last_outputs(k, sets, last_set, r);
  r.kernel_conditions = pc.finish(nullptr, std::nullopt);
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
  auto keep = keep_calls(r.kernel_conditions, r.clock_floor_mhz, o.discard_throttled,
                         static_cast<size_t>(min_timed_calls(o)), r.kernel_discard);
  Attribution kept = a;
  kept.per_call.clear();
  for (size_t i = 0; i < a.per_call.size(); ++i)
    if (keep[i]) kept.per_call.push_back(a.per_call[i]);
  kt.by_correlation = a.by_correlation;
  kt.by_time = a.by_time;
  kt.launched_after_return = a.launched_after_return;
  kt.outside_kernels = a.outside.size();
  std::set<std::string> outside;
  for (const auto& kr : a.outside) outside.insert(kr.name);
  kt.outside_names.assign(outside.begin(), outside.end());
  kt.summary = summarize_kernels(kept, kt.default_stream);
  r.kernel_rel_stderr = median_rel_stderr(kt.summary.sum_ms);
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
  if (empty == kept.per_call.size() && !kept.per_call.empty())
    r.notes.push_back(
        "CUPTI saw no kernel launched by any call: does the kernel function launch one "
        "(or does it only run host code)?");
  else if (empty)
    r.notes.push_back(fmt::format("CUPTI saw no kernel in {} of {} calls", empty, kept.per_call.size()));
}

}  // namespace

bool phase1_stop(const TimingOptions& o, int n, const std::vector<double>& kept, double elapsed_ms,
                 std::string& stopped_by, bool& budget_hit) {
  const int floor_iters = min_timed_calls(o);
  const int k = static_cast<int>(kept.size());
  if (o.iters > 0 && n >= o.iters) {
    stopped_by = "iterations";
    return true;
  }
  // The standard error is computed every call up to 64, then every 4th (it sorts the sample).
  if (o.iters == 0 && k >= floor_iters && (n % 4 == 0 || n < 64) && median_rel_stderr(kept) <= o.noise_target) {
    stopped_by = "noise target";
    return true;
  }
  if (o.iters == 0 && n >= kMaxNoiseDrivenCalls) {
    stopped_by = "call cap";
    return true;
  }
  if (k >= floor_iters && elapsed_ms >= o.budget_ms) {
    stopped_by = "time limit";
    budget_hit = true;
    return true;
  }
  // Every call discarded for long: stop at the time limit anyway (the rule then keeps them all).
  if (elapsed_ms >= 2 * o.budget_ms && n >= floor_iters) {
    stopped_by = "time limit";
    budget_hit = true;
    return true;
  }
  return false;
}

std::string gpu_duration_clock_mismatch(const TimingResult& r) {
  const auto& dur = r.gpu_duration.discard.median_sm_mhz;
  const auto& rec = r.kernel_discard.median_sm_mhz;
  if (!r.gpu_duration.available || !dur || !rec || *rec == 0) return "";
  const double gap = (static_cast<double>(*dur) - *rec) / *rec;
  if (std::abs(gap) <= kDurationClockTolerance) return "";
  return fmt::format(
      "the GPU-duration pass ran at {} MHz against {} MHz in the kernel-time pass ({:+.1f}%; the range "
      "profiler's host time between calls changes the GPU's power and clock): the kernel records lead",
      *dur, *rec, 100 * gap);
}

std::optional<ReportedKernelTime> reported_kernel_time(const TimingResult& r) {
  if (r.gpu_duration.available && r.gpu_duration.clock_mismatch.empty())
    return ReportedKernelTime{&r.gpu_duration.sum, &r.gpu_duration.sum_ms, kGpuDurationLabel, kGpuDurationSource};
  if (r.kernel.available && r.kernel.summary.sum.n > 0)
    return ReportedKernelTime{&r.kernel.summary.sum, &r.kernel.summary.sum_ms, "CUPTI", kKernelTimeSource};
  return std::nullopt;
}

void validate(const TimingOptions& o) {
  if (o.warmup_calls && *o.warmup_calls < 0)
    throw usage_error(fmt::format("--warmup {} is negative", *o.warmup_calls), "pass --warmup 0 or more calls");
  if (!(o.warmup_ms >= 0))
    throw usage_error(fmt::format("--warmup-ms {} is negative", o.warmup_ms), "pass a warm-up time >= 0 ms");
  if (o.iters < 0)
    throw usage_error(fmt::format("--iters {} is below 1", o.iters),
                      "pass --iters 1 or more, or leave it out to time until the noise target");
  if (!(o.noise_target > 0 && o.noise_target < 1))
    throw usage_error(fmt::format("--noise-target {}% is not between 0 and 100", o.noise_target * 100),
                      "pass a relative standard error in percent, e.g. --noise-target 0.5");
  if (!(o.clock_floor_frac >= 0 && o.clock_floor_frac < 1))
    throw usage_error(fmt::format("--throttle-threshold {}% is not in [0, 100)", o.clock_floor_frac * 100),
                      fmt::format("pass a share of the maximum SM clock in percent (default {:g}; 0 keeps every call)",
                                  100 * kDefaultClockFloorFrac));
  if (o.input_sets < 1)
    throw usage_error(fmt::format("--input-sets {} is below 1", o.input_sets),
                      fmt::format("pass 1 or more (default {})", kDefaultInputSets));
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
  InputSets sets(kernel, options.seed, options.input_sets, options.prepare, options.restore_outputs);
  r.rotation.sets = std::max(1, sets.sets());
  r.rotation.seeds = sets.seeds();
  r.rotation.note = sets.note();
  r.restored = sets.restored_names();
  if (!sets.note().empty()) r.notes.push_back(sets.note());
  r.l2_bytes = gpu_l2_bytes(gpu);
  L2Flusher flush(r.l2_bytes, options.l2_flush);
  r.l2_flush_bytes = flush.bytes();
  if (options.l2_flush && r.l2_flush_bytes == 0) r.notes.push_back("the GPU reports no L2 size: L2 not flushed");

  Driver d(kernel, options.call_timeout_ms, gpu, sets, flush);
  warm_up(d, options, r);
  if (r.warmup_calls == 0)
    r.notes.push_back(
        "no warm-up: the first timed call includes one-time costs (module loading, "
        "Triton compilation and autotuning)");
  ClockReader clocks(gpu, r.sm_clock);
  phase_call_time(d, options, r, clocks);
  memo_check(d, options, r, clocks);
  if (options.kernel_time) {
    phase_kernel_time(d, kernel, sets, options, r, clocks);
    if (options.gpu_duration)
      r.gpu_duration = phase_gpu_duration(d, std::min(r.iters, kMaxGpuDurationCalls), clocks, gpu,
                                          {r.clock_floor_mhz, options.discard_throttled,
                                           static_cast<size_t>(min_timed_calls(options)), options.l2_flush});
    else
      r.gpu_duration.note = "GPU duration not measured (disabled)";
  } else {
    r.kernel.note = "kernel time not measured (disabled)";
    r.gpu_duration.note = "GPU duration not measured (kernel time disabled)";
    if (options.keep_last_outputs) keep_last_outputs(kernel, sets, (r.iters - 1) % std::max(1, sets.sets()), r);
  }
  r.gpu_duration.clock_mismatch = gpu_duration_clock_mismatch(r);
  if (!r.gpu_duration.clock_mismatch.empty())
    r.notes.push_back("GPU duration set aside: " + r.gpu_duration.clock_mismatch);
  if (!r.kernel.available) r.kernel_rel_stderr = std::numeric_limits<double>::quiet_NaN();
  if (!flush.note().empty()) r.notes.push_back(flush.note());
  if (!r.sm_clock.note.empty()) r.notes.push_back(r.sm_clock.note);
  apply_rules(r);
  r.integrity = timing_integrity(r);
  return r;
}

}  // namespace kprof
