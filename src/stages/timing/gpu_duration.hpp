// The GPU duration of each kernel the way Nsight Compute measures it: the metric
// gpu__time_duration.sum read through CUPTI's range profiler (cupti_range_profiler.h), one range
// per kernel (CUPTI_AutoRange) with kernel replay (CUPTI_KernelReplay; the metric needs one pass,
// so nothing is replayed). CUPTI's serialized kernel records (cupti_session.hpp) run 0.45-0.8 us
// longer than ncu's gpu__time_duration for every kernel of 2-20 us on the H200; this metric agrees
// with ncu's own (bench/cupti_probe.cu modes serial and autorange, docs/gpu-runs.md). Needs the
// GPU performance counters (as ncu does): without the permission the timer cannot start.
//
// Cache control: with CUPTI 13.4+ (PyPI nvidia-cuda-cupti: setup.sh --cupti) and kprof's L2 flush
// on, the timer asks the range profiler to reset the L2 before each kernel
// (CUpti_RangeProfiler_Enable_Params.cacheControlMode ALL, which CUPTI 13.5 documents as the L2),
// through kprof's copy of the extended struct, so a build against CUDA 13.0's headers can use a
// newer libcupti. After kprof's own L2 flush it moves a short kernel by at most one 32 ns tick on
// the H200; ncu's default --cache-control all costs such a kernel ~0.2 us more, which neither
// reproduces (docs/METHOD.md "How close to ncu", docs/gpu-runs.md 2026-12-04 "night").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "device/cupti_version.hpp"

namespace kprof {

/// The metric the range profiler reads (the catalog's metric::kDuration, which stages/timing
/// cannot include) and its short name in reports ("Kernel time" sources, versions' kernel_source).
inline constexpr const char* kGpuDurationMetric = "gpu__time_duration.sum";
inline constexpr const char* kGpuDurationLabel = "gpu__time_duration";

/// profile.json's timing.gpu_duration.source.
inline constexpr const char* kGpuDurationSource =
    "gpu__time_duration.sum per kernel (CUPTI range profiler, auto range, kernel replay: as ncu measures it)";

/// CUpti_RangeProfiler_Enable_Params as CUPTI 13.4 extended it (`cacheControlMode` appended),
/// declared here so a kprof built against an older toolkit's headers can pass it to a newer
/// libcupti (CUPTI reads the fields `structSize` covers).
struct RangeProfilerEnableParams {
  size_t structSize = 0;
  void* pPriv = nullptr;
  void* ctx = nullptr;                   ///< CUcontext
  void* pRangeProfilerObject = nullptr;  ///< [out] CUpti_RangeProfiler_Object*
  int32_t cacheControlMode = 0;          ///< CUpti_CacheControl_Mode: 0 none, 1 all
};

/// CUPTI_CACHE_CONTROL_MODE_ALL (cupti_range_profiler.h of CUDA 13.4+).
inline constexpr int32_t kCuptiCacheControlAll = 1;

/// The structSize to pass: the whole struct with cache control, the 13.0 struct (the four
/// fields before cacheControlMode) without.
inline size_t range_profiler_enable_size(bool cache_control) {
  return cache_control ? offsetof(RangeProfilerEnableParams, cacheControlMode) + sizeof(int32_t)
                       : offsetof(RangeProfilerEnableParams, cacheControlMode);
}

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
  /// With `reset_l2`, asks CUPTI for ncu's L2 reset before each kernel when the libcupti can
  /// (cupti_has_cache_control(cupti_api_version())); cache_control() says whether it does.
  GpuDurationTimer(int device, bool reset_l2);
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

  /// Whether CUPTI resets the L2 before each kernel (ncu's --cache-control all): asked and supported.
  bool cache_control() const;
  /// The libcupti's API version (cupti_api_version()).
  uint32_t cupti_version() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace kprof
