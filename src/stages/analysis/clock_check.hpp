// Do kprof's timing and ncu's measurement refer to the same conditions? kprof's kernel time per
// call (CUPTI, median over the timed calls) against ncu's duration of its one profiled call, in
// time and in SM cycles, with what NVML sampled during kprof's timed calls. On an H200 a
// cuBLAS GEMM read 1.67 ms over 100 back-to-back calls against ncu's 1.43 ms, with the SW power
// cap active in 18 of 74 NVML samples; without this comparison a report says nothing about such a gap.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "stages/timing/clock_sampler.hpp"

namespace kprof {

/// The two measurements. Times in ms, clocks in Hz, cycles in SM cycles.
struct ClockCheckInput {
  double kprof_ms = 0;                ///< kprof's kernel time per call (median)
  double kprof_std_ms = 0;            ///< its standard deviation over the timed calls
  std::string kprof_label = "CUPTI";  ///< how kprof measured it ("gpu__time_duration": ncu's own metric)
  double ncu_ms = 0;                  ///< ncu's gpu__time_duration.sum over the call's launches
  std::optional<double> ncu_cycles;   ///< gpc__cycles_elapsed.max summed over the launches
  std::optional<double> ncu_hz;       ///< ncu's SM clock (gpc__cycles_elapsed.avg.per_second of the leading launch)
  size_t ncu_launches = 1;            ///< kernels of the call under ncu (each paid ncu's cache flush)
  ClockSummary during;                ///< NVML during kprof's timed calls
};

/// The comparison and what it concludes.
struct ClockCheck {
  double gap_pct = 0;  ///< (kprof - ncu) / ncu x 100
  /// The allowance: kprof's std dev + kTimeAgreeFraction x ncu, plus kNcuCacheFlushMs per launch
  /// when kprof reads below ncu (ncu's flush of all GPU caches before each kernel).
  double tolerance_ms = 0;
  bool cache_flush_allowed = false;  ///< kprof below ncu: the per-launch flush allowance is in tolerance_ms
  bool beyond_noise = false;
  std::optional<double> kprof_cycles;   ///< kprof_ms x NVML's mean SM clock during the timed calls
  std::optional<double> cycle_gap_pct;  ///< (kprof cycles - ncu cycles) / ncu cycles x 100
  bool clocks_explain = false;          ///< beyond noise in time, within kCyclesAgreeFraction in cycles
  std::string text;                     ///< the conclusion, with the numbers
};

/// kprof's CUPTI kernel records and ncu's duration agree within 0.6% on the H200 when the clocks
/// match (bench/RESULTS.md); kprof allows 2% of ncu's time plus kprof's own std dev as noise.
inline constexpr double kTimeAgreeFraction = 0.02;
/// What ncu's --cache-control all (kprof runs ncu with it) adds to each kernel's gpu__time_duration
/// that kprof's timing does not: a flush of every GPU cache before the kernel, which no interface
/// kprof can call reproduces (its L2 read flush, CUPTI 13.5's L2 reset, TLB, constant and
/// instruction sweeps measured on the H200: 0.16-0.22 us per kernel of 3-22 us; docs/METHOD.md "How
/// close to ncu", docs/gpu-runs.md 2026-12-04 "night"). 0.25 us allowed per launch.
inline constexpr double kNcuCacheFlushMs = 0.00025;
/// In cycles the two agree when within 2%.
inline constexpr double kCyclesAgreeFraction = 0.02;

/// Compares; the text names the gap, whether it is beyond noise, the cycles on both sides and
/// what the NVML samples show (throttling reasons, clock range, power against the limit).
ClockCheck check_clocks(const ClockCheckInput& in);

}  // namespace kprof
