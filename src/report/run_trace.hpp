// trace.json of `kprof run`: one trace in the Chrome trace event format (JSON object format, which
// Perfetto and chrome://tracing open; timestamps in microseconds) holding
//   - per version, its timing pass: the warm-up, then every timed call (kept, or marked discarded
//     with the reason) as complete events ("X"), the SM clock and the clock event reasons of each
//     call as counter tracks ("C"), the temperature the NVML sampler saw (its mean over the pass);
//   - the interleaved rounds of --decide: each arm's slot in each round in the order it ran,
//     discarded rounds marked with why, the round's SM clock and throttle state as counters;
//   - the KPROF_TRACE timeline of the command's processes (when KPROF_TRACE was set), as instant
//     events on their real wall-clock times, so one file holds both.
// kprof records durations, not a start time per call: calls and slots are laid end to end in the
// order they ran (the trace's otherData says so); the gaps between calls (restore, L2 flush) are
// not drawn.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "stages/timing/rounds.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

/// What the trace needs of one version's timing pass (a copy: TimingResult holds output buffers).
struct TraceTiming {
  std::string name;
  int warmup_calls = 0;
  double warmup_ms = 0;
  std::vector<double> call_ms;             ///< kept calls, in order, ms
  std::vector<double> call_ms_discarded;   ///< discarded calls, in order, ms
  std::vector<CallConditions> conditions;  ///< per call of the pass, kept or not
  std::optional<unsigned> clock_floor_mhz;
  bool discard_throttled = false;
  std::optional<double> temp_mean_c, temp_max_c;  ///< NVML's temperature over the pass (summary only)
};

/// The parts of `t` the trace draws.
TraceTiming trace_timing_of(const std::string& name, const TimingResult& t);

/// The rounds of --decide with their arms' names (arm i; the A/A arm last) and calls per slot.
struct TraceRounds {
  const RoundsResult* rounds = nullptr;
  std::vector<std::string> arm_names;
  size_t calls_per_slot = 1;
};

/// The whole trace: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}.
/// `kprof_trace` is the text of the KPROF_TRACE file ("" when tracing was off): lines
/// "<epoch seconds> <pid> <event>"; malformed lines are skipped.
nlohmann::json run_trace_json(const std::vector<TraceTiming>& versions, const TraceRounds& rounds,
                              const std::string& kprof_trace);

}  // namespace kprof
