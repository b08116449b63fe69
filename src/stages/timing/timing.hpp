// The timing stage: how long one call of the kernel takes (CUDA events) and how much GPU time its
// kernels take (CUPTI activity records). Used by `kprof profile` and `kprof run`. The method,
// defaults and rules are documented in src/stages/timing/README.md.
//
// Phase 1, call time: after warm-up, CUDA events on the legacy default stream around each
//   KernelInstance::call(). Phase 2, kernel time: the same number of calls again with CUPTI
//   activity collection on, which adds launch overhead (so the call time comes from phase 1,
//   measured without it). Between calls, outside every timed window: outputs restored to their
//   pre-call contents, persisting-L2 lines reset and L2 flushed (unless disabled), device idle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/host_array.hpp"
#include "kernel/kernel_instance.hpp"
#include "stages/timing/attribution.hpp"
#include "stages/timing/clock_sampler.hpp"
#include "stages/timing/integrity.hpp"
#include "stages/timing/noise.hpp"
#include "stages/timing/stats.hpp"
#include "stages/timing/timing_values.hpp"

namespace kprof {

/// The time limit of the first timing pass without --iters, ms (wall time of its loop, kprof's
/// restore and flush between calls included): timing stops earlier once the relative standard
/// error of the median reaches TimingOptions::noise_target (nvbench stops on the same criterion,
/// with a 15 s timeout over its accumulated GPU time), and never before min_iters kept calls.
inline constexpr double kDefaultBudgetMs = 1500;
/// The time limit with an explicit --iters N: N calls unless they take longer than this (a 50 ms
/// kernel is timed about 60 times, not N), ms.
inline constexpr double kExplicitItersBudgetMs = 3000;
/// nvbench's throttle threshold: a call whose SM clock was below 75% of the GPU's maximum SM clock
/// is discarded (nvbench: --throttle-threshold 75).
inline constexpr double kDefaultClockFloorFrac = 0.75;
/// Input sets the timed calls rotate over (seeds seed, seed + 1, ...): a kernel that memoizes its
/// output on an input fingerprint cannot serve a call from the previous call's answer.
inline constexpr int kDefaultInputSets = 3;
/// The noise-driven pass stops at this many calls whatever the noise (bounds memory and time).
inline constexpr int kMaxNoiseDrivenCalls = 20000;
/// Phase 3 (GPU duration) makes as many calls as phase 1 kept, at most this many: the range
/// profiler adds about 2 ms of host time per call (bench/cupti_probe.cu, H200).
inline constexpr int kMaxGpuDurationCalls = 100;

/// How to time. Defaults are the CLI's defaults.
/// Default of --warm-up by time, ms: 100 ms of steady calls lets the SM clock ramp up.
inline constexpr double kDefaultWarmupMs = 100;

struct TimingOptions {
  /// Warm-up by count (--warmup N): exactly N calls, 0 allowed. Unset: warm-up by time.
  std::optional<int> warmup_calls;
  /// Warm-up by time (--warmup-ms T): after the first call (which absorbs Triton compilation and
  /// autotuning, however long they take), keep calling until T ms have passed since that first
  /// call returned and at least min_warmup_calls calls ran. 100 ms lets GPU clocks ramp up.
  double warmup_ms = kDefaultWarmupMs;
  int min_warmup_calls = 3;
  /// Timed calls (--iters N) of the first pass; 0 (the default): as many as the noise target
  /// needs (noise_target), within budget_ms and kMaxNoiseDrivenCalls.
  int iters = 0;
  /// The target relative standard error of the median kept call time (--noise-target, percent on
  /// the command line; 0.005 = 0.5%, nvbench's default max noise). Ignored with iters > 0.
  double noise_target = kDefaultNoiseTarget;
  /// Time limit of the first pass in ms (wall time of its loop, flushes included): once spent, it
  /// stops, after at least min(iters or min_iters, min_iters) kept calls. The second pass (CUPTI)
  /// makes as many calls as the first made.
  double budget_ms = kDefaultBudgetMs;
  int min_iters = 20;
  /// Calls whose SM clock (NVML, read in the same pass) fell below this share of the GPU's maximum
  /// SM clock are discarded and reported (--throttle-threshold, percent; 0 keeps every call).
  double clock_floor_frac = kDefaultClockFloorFrac;
  /// Also discard calls during which NVML reported a power or thermal throttle (SW power cap,
  /// HW slowdown, thermal slowdown: nvml_reasons_throttle) (--discard-throttled).
  bool discard_throttled = false;
  /// Input sets rotated over during the timed calls (--input-sets; 1: every call on the same inputs).
  int input_sets = kDefaultInputSets;
  /// Time a few calls on identical inputs after the rotated first pass and compare (memoization).
  bool memo_check = true;
  /// Copy the outputs of the last timed call to the host (TimingResult::last_outputs) so the flow can
  /// compare them with the reference.
  bool keep_last_outputs = false;
  /// Flush L2 between calls (off: --no-l2-flush).
  bool l2_flush = true;
  /// Restore outputs to their pre-call contents between calls (in-place kernels would drift).
  bool restore_outputs = true;
  /// How long the GPU may take to finish one call once the host call returned, ms. Past it the
  /// stage throws (the kernel may hang). The host call itself (Python, compilation) is not bounded.
  double call_timeout_ms = 10000;
  /// Run phase 2 (CUPTI kernel records).
  bool kernel_time = true;
  /// Run phase 3 (with kernel_time): up to kMaxGpuDurationCalls calls more under CUPTI's range
  /// profiler, each kernel's gpu__time_duration as ncu measures it.
  bool gpu_duration = true;
  /// Call KernelInstance::prepare(seed) first (fresh buffers). When false, the current buffers are
  /// used as they are and their current outputs are what gets restored. With input_sets > 1 the
  /// stage prepares the other sets itself (prepare(seed + k)) and prepare(seed) last.
  bool prepare = true;
  uint64_t seed = 0;
};

/// The calls phase 1 makes at least before the time budget may stop it: min(iters, min_iters).
inline int min_timed_calls(const TimingOptions& o) {
  return o.iters > 0 && o.iters < o.min_iters ? o.iters : o.min_iters;
}

/// Phase 1's stop (pure): after `n` timed calls of which `kept` were kept (ms) and `elapsed_ms`
/// since the first, whether to stop: exactly o.iters calls; else the noise target (checked every
/// call up to 64, then every 4th) once min_timed_calls kept, the call cap kMaxNoiseDrivenCalls, or
/// o.budget_ms (2 x o.budget_ms when too few calls were kept). Sets `stopped_by` ("iterations",
/// "noise target", "call cap", "time limit") and `budget_hit` when it stops. The timing stage and
/// the simulation suite (tests/sim, a fake clock) call it.
bool phase1_stop(const TimingOptions& o, int n, const std::vector<double>& kept, double elapsed_ms,
                 std::string& stopped_by, bool& budget_hit);

/// Throws Error (exit 2) naming the option when a value is out of range (iters < 1, negative
/// warm-up, budget or per-call limit <= 0, a noise target outside (0, 1), a clock floor outside
/// [0, 1), fewer than 1 input set).
void validate(const TimingOptions& o);

/// The outputs of the last timed call, on the host, with the input set they were computed from.
struct LastOutputs {
  int set = 0;
  uint64_t seed = 0;
  std::vector<HostArray> outputs;  ///< every BufferView::is_output buffer, in buffer order
  std::vector<std::string> names;
};

/// Everything the timing stage measured, in ms unless named otherwise.
struct TimingResult {
  TimingOptions options;    ///< as requested
  int warmup_calls = 0;     ///< warm-up calls made
  double warmup_ms = 0;     ///< wall time they took
  int iters = 0;            ///< timed calls made in the first pass (the second makes as many)
  bool budget_hit = false;  ///< phase 1 stopped at the time budget before its count or noise target
  /// Why the first pass stopped: "noise target", "time limit", "iterations", "call cap".
  std::string stopped_by;
  double call_rel_stderr = 0;                     ///< relative standard error of the median kept call time (noise.hpp)
  double kernel_rel_stderr = 0;                   ///< the same for the kernel time (NaN when not measured)
  std::optional<unsigned> clock_floor_mhz;        ///< the floor in force (unset: none)
  std::vector<CallConditions> call_conditions;    ///< per call of the first pass, kept or not
  std::vector<CallConditions> kernel_conditions;  ///< per call of the second pass
  std::vector<double> call_ms_discarded;          ///< first-pass call times not counted
  DiscardSummary call_discard, kernel_discard;
  InputRotation rotation;
  MemoCheck memo;
  std::optional<LastOutputs> last_outputs;  ///< with options.keep_last_outputs
  /// The integrity checks (stages/timing/integrity.hpp timing_integrity); the flow adds the check
  /// of last_outputs against the reference and settles the verdict again.
  Integrity integrity;
  size_t l2_flush_bytes = 0;          ///< bytes written per flush (0: no flush)
  size_t l2_bytes = 0;                ///< L2 size (cudaDevAttrL2CacheSize)
  std::vector<std::string> restored;  ///< output buffers restored between calls
  std::vector<double> call_ms;        ///< phase 1, per kept call
  SampleStats call;                   ///< statistics of call_ms
  bool call_unstable = false;         ///< call.cv > kUnstableCv
  KernelTimeResult kernel;
  GpuDurationResult gpu_duration;    ///< phase 3
  bool kernel_unstable = false;      ///< kernel.summary.sum.cv > kUnstableCv
  bool overhead_dominates = false;   ///< median kernel time < kOverheadKernelShare * median call time
  bool kernels_exceed_call = false;  ///< median kernel busy time > call time (1 + kEscapeMargin)
  SmClockRecord sm_clock;
  /// NVML sampled by a thread every kClockSamplePeriodMs during phase 1 (the timed calls and
  /// kprof's restore/flush between them): SM and memory clock, power, clock event reasons,
  /// temperature. `during.note` says why it is empty.
  ClockSummary during;
  std::vector<std::string> notes;  ///< anything the reader should know (restore, CUPTI, clocks)
};

/// The GPU-duration pass is set aside when its median SM clock differs from the kernel-time
/// pass's by more than this fraction (kprof's rule: NVML's clock steps are 15 MHz, 0.8% of
/// 1980 MHz). Seen on the H200: a power-capped fp16 GEMM ran at 1605 MHz back to back and at
/// 1980 MHz with the range profiler's ~1.7 ms of host time between calls.
inline constexpr double kDurationClockTolerance = 0.02;

/// Why the GPU-duration pass does not describe the kernel-time pass's conditions: "" when their
/// median SM clocks (DiscardSummary::median_sm_mhz) agree within kDurationClockTolerance or one is
/// unknown (pure).
std::string gpu_duration_clock_mismatch(const TimingResult& r);

/// The kernel time per call the reports lead with.
struct ReportedKernelTime {
  const SampleStats* stats = nullptr;  ///< median, std dev, ... (ms)
  const std::vector<double>* per_call_ms = nullptr;
  const char* label = "";   ///< short, for tables: "gpu__time_duration" or "CUPTI"
  const char* source = "";  ///< the method in full (kGpuDurationSource or kKernelTimeSource)
};

/// Phase 3's GPU duration (what ncu reports) when it was measured at the kernel-time pass's clock
/// (GpuDurationResult::clock_mismatch empty), else phase 2's sum of CUPTI kernel records; nullopt
/// when neither was (then the call time is all there is).
std::optional<ReportedKernelTime> reported_kernel_time(const TimingResult& r);

/// Derives call_unstable, kernel_unstable, overhead_dominates and kernels_exceed_call from the
/// statistics already in `r` (pure; measure_timing calls it, tests call it on synthetic data).
void apply_rules(TimingResult& r);

/// Times `kernel` on GPU `gpu` (already selected with select_gpu) as the file comment says.
/// Throws Error (exit 2) for bad options; (exit 1) when a call fails to launch, faults, or does
/// not finish within options.call_timeout_ms, or when L2-flush scratch cannot be allocated.
/// CUPTI failures do not throw: result.kernel.available is false with the reason.
TimingResult measure_timing(KernelInstance& kernel, const TimingOptions& options, int gpu);

/// timing_integrity (stages/timing/integrity.hpp) of a whole result.
inline Integrity timing_integrity(const TimingResult& r) { return timing_integrity(r.kernel, r.rotation, r.memo); }

}  // namespace kprof
