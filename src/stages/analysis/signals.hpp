// The seed's secondary-signal table, evaluated row by row for one kernel.
#pragma once

#include <optional>
#include <vector>

#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// Evaluates every row of the seed's "Secondary signals" table (uncoalesced loads and stores,
/// L1 and L2 hit rates, shared-memory bank conflicts, issue slot utilization, eligible warps,
/// register spills, long-scoreboard and barrier stalls, branch efficiency and divergent
/// branches), in that order, then kprof's thread-divergence row. Each row names its metrics,
/// value, threshold (constants in stages/analysis/thresholds.hpp) and ideal; a row whose metrics are
/// missing says "not collected". `footprint` (bytes of the call's buffers, when kprof knows them)
/// decides whether data is reused for the hit-rate rows (load_reuse); without it the DRAM bytes
/// read stand in.
std::vector<SignalRow> evaluate_signals(const KernelMetrics& k, std::optional<double> footprint = std::nullopt);

}  // namespace kprof
