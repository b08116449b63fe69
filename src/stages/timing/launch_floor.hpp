// The launch floor of a GPU: the least duration any kernel has on it, launch and completion of an
// empty kernel, measured the way ncu measures gpu__time_duration.sum (kprof's GPU-duration pass,
// gpu_duration.hpp). The time bound is max(floor, work) (stages/analysis/bound.hpp): no kernel
// finishes faster than the floor, however little work it does. Measured once per GPU and cached by
// the flow (flows/ceiling_cache.hpp), like the achievable bandwidth.
#pragma once

#include <optional>
#include <string>

namespace kprof {

/// One launch floor.
struct LaunchFloor {
  double seconds = 0;        ///< gpu__time_duration.sum of an empty kernel (median of its repetitions), s
  std::string how;           ///< "empty kernel <<<1, 1>>>, gpu__time_duration.sum median of 20 (CUPTI range profiler)"
  std::string measured_at;   ///< UTC date-time of the measurement, or where a committed value came from
  bool cached = false;       ///< read from the cache rather than measured now
  bool provisional = false;  ///< not measured on an empty kernel: an upper bound from another small kernel
};

/// Repetitions of the floor's measurement (after kLaunchFloorWarmups warm-up launches).
inline constexpr int kLaunchFloorReps = 20;
inline constexpr int kLaunchFloorWarmups = 3;

/// The launch floor of CUDA device `gpu` (selected before), measured now: kLaunchFloorWarmups
/// empty kernels, then kLaunchFloorReps of them each in its own GPU-duration range (no L2 reset:
/// the empty kernel touches no memory); the median. nullopt with `why` when the range profiler
/// cannot start (no permission for the GPU's counters, another profiler); never throws. Writes no
/// file: the flow keeps the cache.
std::optional<LaunchFloor> measure_launch_floor(int gpu, std::string* why = nullptr);

}  // namespace kprof
