// The bottleneck classifier: the seed's "Bottleneck Classification" table applied to ncu
// metrics, per kernel and for a call. Decisions and thresholds: stages/analysis/thresholds.hpp and
// docs/CLASSIFICATION.md.
#pragma once

#include <optional>

#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// Classifies one kernel launch. Checks, in order (first that holds wins):
///   Memory-Bound   memory SOL > 60% and >= 20 points above SM SOL (names DRAM, L1 or L2)
///   Compute-Bound  SM SOL > 60% and >= 20 points above memory SOL (names the busiest pipe)
///   Occupancy-Bound  grid fills >= 1 wave, the limiter is known, and theoretical occupancy < 50%
///                  or achieved < 50% of theoretical (names the limiter)
///   Latency-Bound  both SOLs < 40% (names the cause: waves < 1, eligible warps < 1, or the top
///                  two stall reasons)
///   Mixed          otherwise (names a pipe >= 80% busy as its limiter).
/// NotClassified when SM SOL or memory SOL is missing. Uses what is there: every conclusion it
/// could not draw is listed in Verdict::not_concluded with the metrics it lacked. `footprint`
/// (bytes of the call's buffers) goes to the hit-rate signals (evaluate_signals). Never throws.
Verdict classify_kernel(const KernelMetrics& k, std::optional<double> footprint = std::nullopt);

/// Classifies every launch of `table` and picks the call's leading kernel: the kernel name with
/// the most GPU time (gpu__time_duration.sum summed over its launches), represented by its
/// longest launch. With no durations the first classified launch leads. Never throws.
CallVerdict classify_call(const MetricTable& table, std::optional<double> footprint = std::nullopt);

}  // namespace kprof
