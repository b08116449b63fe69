// Phase 3 of the timing (GPU duration): ncu's gpu__time_duration.sum of every kernel of each call,
// read by CUPTI's range profiler (gpu_duration.hpp), with NVML's clocks read in the same pass and
// the discard rule applied to its calls. Internal to stages/timing (timing.cpp calls it).
#pragma once

#include <cstddef>
#include <optional>

#include "stages/timing/clock_reader.hpp"
#include "stages/timing/driver.hpp"
#include "stages/timing/timing_values.hpp"

namespace kprof {

/// The discard rule of the pass (call_conditions.hpp keep_calls): the clock floor (MHz; nullopt:
/// none), whether a power or thermal throttle discards a call, and the fewest calls to keep.
struct DurationPassRules {
  std::optional<unsigned> clock_floor_mhz;
  bool discard_throttled = false;
  size_t min_keep = 0;
  /// Ask CUPTI 13.4+ to reset the L2 before each kernel (ncu's --cache-control all): on when
  /// kprof flushes L2 between calls (TimingOptions::l2_flush), off with --no-l2-flush, whose
  /// warm-L2 times the reset would undo.
  bool reset_l2 = true;
};

/// Makes `calls` calls under CUPTI's range profiler, rotating over the driver's input sets so the
/// last call runs on set 1 (set 0 with one set), as phase 2 does. Never throws for CUPTI's own
/// failures (the result's `note` then says why and `available` is false), only for the kernel's
/// (launch errors, faults, hangs: Error).
GpuDurationResult phase_gpu_duration(Driver& d, int calls, ClockReader& clocks, int gpu,
                                     const DurationPassRules& rules);

}  // namespace kprof
