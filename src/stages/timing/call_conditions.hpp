// Per-call clock conditions and the discard rule of the timing stage (pure, no CUDA, no NVML):
// which NVML samples belong to which timed call, and which calls a clock floor or a throttle
// reason discards (nvbench's throttle handling: a call below 75% of the GPU's maximum SM clock is
// not counted).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "stages/timing/clock_sampler.hpp"
#include "stages/timing/timing_values.hpp"

namespace kprof {

/// One call's host window in the sampler's time base (ms since BackgroundSampler::start).
struct SampleWindow {
  double begin_ms = 0;
  double end_ms = 0;
};

/// The conditions of each call: the lowest SM clock and the OR of the reason masks over the
/// background samples inside its window (`samples` sorted by time) and its own read right after
/// it (`after[i]`, may be empty). `windows` and `after` have one entry per call. Never throws.
std::vector<CallConditions> conditions_per_call(const std::vector<SampleWindow>& windows,
                                                const std::vector<NvmlSample>& after,
                                                const std::vector<ClockSample>& samples);

/// The clock floor of `max_sm_mhz` at `floor_frac` (0: none), MHz.
std::optional<unsigned> clock_floor_mhz(std::optional<unsigned> max_sm_mhz, double floor_frac);

/// True when one call's conditions discard it: its SM clock is below `floor_mhz`, or (with
/// `discard_throttled`) its reasons hold a throttle (nvml_reasons_throttle).
bool discards(const CallConditions& c, std::optional<unsigned> floor_mhz, bool discard_throttled);

/// Which calls to keep: a call is discarded when its SM clock is below `floor_mhz`, or (with
/// `discard_throttled`) when its reasons hold a throttle (nvml_reasons_throttle). When fewer than
/// `min_keep` calls would remain, every call is kept (summary.kept_all). Returns one flag per call
/// (true: kept) and fills `summary` (counts and the clock range over all calls).
std::vector<bool> keep_calls(const std::vector<CallConditions>& calls, std::optional<unsigned> floor_mhz,
                             bool discard_throttled, size_t min_keep, DiscardSummary& summary);

/// The value of `xs` at the kept flags.
std::vector<double> kept_values(const std::vector<double>& xs, const std::vector<bool>& keep);

}  // namespace kprof
