// Markdown and JSON renderings of a TimingResult (the "Execution time" section of
// ncu_summary.md / profile.json and of `kprof run`'s comparison).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "stages/timing/timing.hpp"

namespace kprof {

/// The conclusions a reader should act on, one sentence each, with the measured value and the
/// rule's threshold: unstable call/kernel time (CV > kUnstableCv), launch or host overhead
/// dominating (kernel < kOverheadKernelShare of the call), kernels outside the event-visible
/// stream (kernels_exceed_call, other CUPTI streams). One "no finding" sentence when none fires.
std::vector<std::string> timing_findings(const TimingResult& r);

/// "## Execution time" Markdown: call time and kernel time side by side (median, mean, std dev,
/// min, max, CV, calls), kernels per call, findings, method (warm-up, iterations, L2 flush,
/// restore, per-call limit, SM clock) and notes. Durations with readable units (fmt_duration_ms).
std::string timing_markdown(const TimingResult& r);

/// One sentence on the GPU-duration pass's cache control: CUPTI's L2 reset before each kernel (as
/// ncu's --cache-control all; CUPTI 13.4+, stages/timing/gpu_duration.hpp) with the CUPTI version;
/// none with --no-l2-flush; else kprof's flush alone and how to get the reset (nvidia-cuda-cupti).
std::string cache_control_text(const GpuDurationResult& g);

/// One sentence on what NVML showed during the timed calls (clock ranges, power against the
/// limit, temperature, clock event reasons with their sample counts), or why nothing was sampled.
std::string during_text(const ClockSummary& d);

/// The same as JSON: {samples, period_ms, span_ms, sm_clock_mhz {min,max,mean,n}, memory_clock_mhz,
/// power_w, power_limit_w, temperature_c, reason_samples, reasons {name: samples},
/// throttled_samples, note}.
nlohmann::json during_json(const ClockSummary& d);

/// "Timed calls: 180 in the first pass (until the relative standard error of the median reached
/// 0.50% ...; stopped by the noise target ...)": how the sample count was reached, the relative
/// standard errors (stages/timing/noise.hpp) and the calls discarded (report/timing_sampling_report.cpp).
std::string sampling_text(const TimingResult& r);

/// The input rotation and the identical-input calls, one sentence.
std::string rotation_text(const TimingResult& r);

/// The SM clock the timed calls ran at (NVML, both passes) and the floor, one sentence.
std::string clocks_text(const TimingResult& r);

/// Findings of the sampling: the time limit stopped timing before the noise target, power or
/// thermal throttling during timed calls (kept or discarded), calls below the clock floor,
/// identical inputs faster than rotated ones (memoization). Empty when none applies.
std::vector<std::string> sampling_findings(const TimingResult& r);

/// {calls, stopped_by, call_rel_stderr, kernel_rel_stderr (fractions), noise_target,
/// clock_floor_mhz, call_pass / kernel_pass {discarded, below_floor, throttled_discarded,
/// throttled_seen, kept_all, sm_clock_mhz_median/min/max}, discarded_call_ms, input_sets,
/// input_seeds, memoization {ran, identical_calls, identical_median_ms, rotated_median_ms, ratio,
/// suspected, gap_threshold, note}}.
nlohmann::json sampling_json(const TimingResult& r);

/// "### Integrity" Markdown: the verdict and one line per check with its evidence.
std::string integrity_markdown(const Integrity& i);

/// {"verdict": "pass|warn|fail|not_run", "checks": [{"name", "status", "detail"}]}.
nlohmann::json integrity_json(const Integrity& i);

/// The same content as JSON; durations in ms (keys end in _ms), clocks in MHz, ratios as
/// fractions (cv 0.012 = 1.2%). Statistics without data are null.
nlohmann::json timing_json(const TimingResult& r);

}  // namespace kprof
