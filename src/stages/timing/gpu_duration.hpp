// The GPU duration of each kernel the way Nsight Compute measures it: the metric
// gpu__time_duration.sum read through CUPTI's range profiler (cupti_range_profiler.h), one range
// per kernel (CUPTI_AutoRange) with kernel replay (CUPTI_KernelReplay; the metric needs one pass,
// so nothing is replayed). CUPTI's serialized kernel records (cupti_session.hpp) run 0.45-0.8 us
// longer than ncu's gpu__time_duration for every kernel of 2-20 us on the H200; this metric agrees
// with ncu's own (bench/cupti_probe.cu modes serial and autorange, docs/gpu-runs.md). Needs the
// GPU performance counters (as ncu does): without the permission the timer cannot start.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace kprof {

/// The metric the range profiler reads (the catalog's metric::kDuration, which stages/timing
/// cannot include) and its short name in reports ("Kernel time" sources, versions' kernel_source).
inline constexpr const char* kGpuDurationMetric = "gpu__time_duration.sum";
inline constexpr const char* kGpuDurationLabel = "gpu__time_duration";

/// profile.json's timing.gpu_duration.source.
inline constexpr const char* kGpuDurationSource =
    "gpu__time_duration.sum per kernel (CUPTI range profiler, auto range, kernel replay: as ncu measures it)";

/// The most kernels one call may launch for its GPU duration to be read (ranges per pass).
inline constexpr size_t kMaxKernelsPerCall = 256;

/// CUPTI's range profiler refused or failed (exit 1); apart from the kernel's own errors (launch
/// failures, faults, hangs), which the timing lets through.
class CuptiRangeError : public Error {
 public:
  CuptiRangeError(const std::string& message, std::string hint = {})
      : Error(ExitCode::Failed, message, std::move(hint)) {}
};

/// One kernel's GPU duration (one auto range).
struct KernelDuration {
  double ns = 0;  ///< gpu__time_duration.sum, ns
};

/// CUPTI's range profiler on the current CUDA context of `device` (a CUDA ordinal). One per
/// process at a time; not at the same time as a CuptiSession.
class GpuDurationTimer {
 public:
  /// Sets up the profiler (chip name, counter availability, config image for the one metric).
  /// Throws CuptiRangeError with CUPTI's message when it cannot (no permission to read the GPU
  /// performance counters, another profiler holds them, the metric needs more than one pass).
  explicit GpuDurationTimer(int device);
  ~GpuDurationTimer();
  GpuDurationTimer(const GpuDurationTimer&) = delete;
  GpuDurationTimer& operator=(const GpuDurationTimer&) = delete;

  /// Before one call (after kprof's restore and flush, the device idle): every kernel launched
  /// until end() gets a range. Throws CuptiRangeError when CUPTI refuses.
  void begin();
  /// After the call's work finished (device idle): the duration of every kernel since begin(), in
  /// launch order. Throws CuptiRangeError when CUPTI refuses or dropped ranges (more than
  /// kMaxKernelsPerCall kernels).
  std::vector<KernelDuration> end();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace kprof
