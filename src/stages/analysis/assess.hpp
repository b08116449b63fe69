// The whole assessment of a call: the classification (classify.hpp), then per kernel the ranked
// findings with their gains, the implementation efficiency, ncu's own rule results beside
// kprof's findings and the stalls that explain the limiter; per call the time bound against
// kprof's measured time, the gains capped by its headroom, and kprof's timing against ncu's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/bound.hpp"
#include "stages/analysis/known_gpus.hpp"
#include "stages/analysis/ncu_rules.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/timing/clock_sampler.hpp"

namespace kprof {

/// What kprof knows beyond the ncu report. Everything is optional: `kprof analyze` of a report
/// alone has none of it, `kprof profile` and `run` fill what they measured.
struct AnalysisContext {
  std::optional<WorkModel> work;  ///< the least work of the call (buffers, ref.py)
  std::optional<double>
      measured_ms;             ///< kprof's kernel time per call (timing.hpp reported_kernel_time; else call time)
  double measured_std_ms = 0;  ///< its standard deviation
  std::string measured_how;    ///< "kernel time per call: gpu__time_duration, median of 100"
  std::string measured_label = "CUPTI";     ///< how, short: "gpu__time_duration", "CUPTI" or "CUDA events"
  std::optional<double> sm_hz;              ///< NVML's mean SM clock during the timed calls, Hz
  std::optional<Rate> dram_achievable;      ///< kprof's measured copy bandwidth (stages/timing/achievable.hpp)
  std::optional<LaunchFloor> launch_floor;  ///< the GPU's launch floor (stages/timing/launch_floor.hpp)
  /// Ceilings known per GPU model (this machine's cache, then committed_gpu_ceilings()): used for
  /// the report's GPU (device__attribute_display_name) where dram_achievable / launch_floor are unset.
  std::vector<GpuCeilings> known_gpus;
  std::optional<ClockSummary> during;  ///< NVML during the timed calls
  /// ncu's rule results per launch; nullopt when they could not be read (`rules_note` says why).
  std::optional<std::vector<KernelRuleResults>> rules;
  std::string rules_note;
};

/// classify_call, then assess_verdict. Never throws.
CallVerdict assess_call(const MetricTable& table, const AnalysisContext& ctx);

/// Everything the file comment lists, added to a verdict already classified (`call.kernels[i]`
/// belongs to `table.kernels[i]`; a streamed analysis keeps only some launches in the table).
/// Never throws.
void assess_verdict(const MetricTable& table, CallVerdict& call, const AnalysisContext& ctx);

/// The leading stall reasons of `k` that explain the verdict's limiter or one of its findings
/// (each reason points at a unit: long scoreboard at global/local memory, short scoreboard and
/// MIO throttle at shared memory/MIO, math pipe throttle at a busy pipe, barrier at
/// synchronisation, ...), at most kTopStalls with a share >= kExplainingStallPct; "" when none.
/// Latency-Bound verdicts name their stalls themselves and get "".
std::string explaining_stalls(const KernelMetrics& k, const Verdict& v);

}  // namespace kprof
