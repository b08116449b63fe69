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

#include "kernel/kernel_instance.hpp"
#include "stages/timing/attribution.hpp"
#include "stages/timing/clock_sampler.hpp"
#include "stages/timing/stats.hpp"

namespace kprof {

/// The timed calls' budget per phase without --iters, ms: as long as nvbench's and Triton's
/// do_bench's defaults allow (0.5 s and 0.1 s of measurement), with at least min_iters (20) calls;
/// beyond ~30 calls of a multi-ms kernel the median moves by less than its own noise (issue 17).
inline constexpr double kDefaultBudgetMs = 300;
/// The budget with an explicit --iters N: N calls unless they take longer than this (a 50 ms kernel
/// is timed about 60 times, not N), ms.
inline constexpr double kExplicitItersBudgetMs = 3000;

/// How to time. Defaults are the CLI's defaults.
struct TimingOptions {
  /// Warm-up by count (--warmup N): exactly N calls, 0 allowed. Unset: warm-up by time.
  std::optional<int> warmup_calls;
  /// Warm-up by time (--warmup-ms T): after the first call (which absorbs Triton compilation and
  /// autotuning, however long they take), keep calling until T ms have passed since that first
  /// call returned and at least min_warmup_calls calls ran. 100 ms lets GPU clocks ramp up.
  double warmup_ms = 100;
  int min_warmup_calls = 3;
  /// Timed calls (--iters N), in each phase.
  int iters = 100;
  /// Time budget of phase 1 in ms (wall time of its loop, flushes included): once spent, phase 1
  /// stops early, after at least min(iters, min_iters) calls. Phase 2 then runs the same number of
  /// calls. The default (kDefaultBudgetMs) times a kernel of up to ~3 ms 100 times and a 10 ms one
  /// ~30 times; with an explicit --iters the CLI allows kExplicitItersBudgetMs.
  double budget_ms = kDefaultBudgetMs;
  int min_iters = 20;
  /// Flush L2 between calls (off: --no-l2-flush).
  bool l2_flush = true;
  /// Restore outputs to their pre-call contents between calls (in-place kernels would drift).
  bool restore_outputs = true;
  /// How long the GPU may take to finish one call once the host call returned, ms. Past it the
  /// stage throws (the kernel may hang). The host call itself (Python, compilation) is not bounded.
  double call_timeout_ms = 10000;
  /// Run phase 2 (CUPTI kernel records).
  bool kernel_time = true;
  /// Call KernelInstance::prepare(seed) first (fresh buffers). When false, the current buffers are
  /// used as they are and their current outputs are what gets restored.
  bool prepare = true;
  uint64_t seed = 0;
};

/// The calls phase 1 makes at least before the time budget may stop it: min(iters, min_iters).
inline int min_timed_calls(const TimingOptions& o) { return o.iters < o.min_iters ? o.iters : o.min_iters; }

/// Throws Error (exit 2) naming the option when a value is out of range (iters < 1, negative
/// warm-up, budget or per-call limit <= 0).
void validate(const TimingOptions& o);

/// SM clock seen by NVML (nvmlDeviceGetClockInfo(NVML_CLOCK_SM)) around phase 1, MHz. Unset
/// values could not be read; `note` says why.
struct SmClockRecord {
  std::optional<unsigned> before;    ///< right before the first timed call (after warm-up)
  std::optional<unsigned> after;     ///< right after the last timed call
  std::optional<unsigned> min_seen;  ///< lowest of the samples taken between timed calls
  std::optional<unsigned> max_seen;  ///< highest of those samples
  std::optional<unsigned> max_mhz;   ///< the GPU's maximum SM clock (nvmlDeviceGetMaxClockInfo)
  std::string note;
};

/// Phase 2's outcome. When `available` is false, `note` says why and the rest is empty.
struct KernelTimeResult {
  bool available = false;
  std::string note;
  KernelTimeSummary summary;               ///< per call and per kernel name
  std::optional<uint32_t> default_stream;  ///< CUPTI id of the legacy default stream, if seen
  size_t outside_kernels = 0;              ///< kernels no call window owns (not counted)
  std::vector<std::string> outside_names;
  size_t by_correlation = 0;  ///< attribution statistics (attribution.hpp)
  size_t by_time = 0;
};

/// Everything the timing stage measured, in ms unless named otherwise.
struct TimingResult {
  TimingOptions options;              ///< as requested
  int warmup_calls = 0;               ///< warm-up calls made
  double warmup_ms = 0;               ///< wall time they took
  int iters = 0;                      ///< timed calls per phase
  bool budget_hit = false;            ///< phase 1 stopped at the time budget before `options.iters`
  size_t l2_flush_bytes = 0;          ///< bytes written per flush (0: no flush)
  size_t l2_bytes = 0;                ///< L2 size (cudaDevAttrL2CacheSize)
  std::vector<std::string> restored;  ///< output buffers restored between calls
  std::vector<double> call_ms;        ///< phase 1, per call
  SampleStats call;                   ///< statistics of call_ms
  bool call_unstable = false;         ///< call.cv > kUnstableCv
  KernelTimeResult kernel;
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

/// Derives call_unstable, kernel_unstable, overhead_dominates and kernels_exceed_call from the
/// statistics already in `r` (pure; measure_timing calls it, tests call it on synthetic data).
void apply_rules(TimingResult& r);

/// Times `kernel` on GPU `gpu` (already selected with select_gpu) as the file comment says.
/// Throws Error (exit 2) for bad options; (exit 1) when a call fails to launch, faults, or does
/// not finish within options.call_timeout_ms, or when L2-flush scratch cannot be allocated.
/// CUPTI failures do not throw: result.kernel.available is false with the reason.
TimingResult measure_timing(KernelInstance& kernel, const TimingOptions& options, int gpu);

}  // namespace kprof
