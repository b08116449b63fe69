// Which unit is behind SM SOL and memory SOL. ncu's SOL values are each the maximum of a
// breakdown: ncu's own list where the report carries it (a .ncu-rep's "breakdown:" metrics), else
// kprof's copy (stages/ncu/metrics.hpp sm_sol_leaves / memory_sol_leaves: every pipe, MIO, the
// issue slots, the L1/TEX, L2 and DRAM stages); the unit named as the source must account for the SOL
// within threshold::kSolSourcePts, otherwise the source is "not identified" and the candidates are
// listed. Reports without the breakdown (older ones, ncu's basic set) fall back to the catalog's
// units (limiter.hpp unit_loads), under the same rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/limiter.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// The unit behind one SOL value.
struct SolSource {
  std::string sol;              ///< "SM SOL" or "memory SOL"
  std::string metric;           ///< the SOL's ncu metric
  double sol_pct = 0;           ///< the SOL, % of peak (elapsed)
  bool from_breakdown = false;  ///< true: ncu's breakdown leaves; false: the catalog's units (older reports)
  /// True when the report carried ncu's own list of the leaves (a .ncu-rep's "breakdown:" metric);
  /// false: kprof's copy of it (stages/ncu/metrics.hpp sm_sol_leaves / memory_sol_leaves).
  bool breakdown_in_report = false;
  /// Every unit with its busiest leaf, busiest first (name, leaf metric, % of peak).
  std::vector<UnitLoad> candidates;
  /// The busiest candidate within kSolSourcePts of the SOL (a pipe within it rather
  /// than the issue slots, which count every pipe's instructions); nullopt: not identified.
  std::optional<UnitLoad> source;
  /// "ADU pipe 95.5% (sm__inst_executed_pipe_adu....)" or "not identified: no unit within 5 points
  /// of SM SOL 95.5% (candidates: LSU pipe 47.9%, ...)".
  std::string text() const;
};

/// The source of SM SOL (sm__throughput.avg.pct_of_peak_sustained_elapsed); nullopt without it.
std::optional<SolSource> sm_sol_source(const KernelMetrics& k);

/// The source of memory SOL (gpu__compute_memory_throughput...); nullopt without it.
std::optional<SolSource> memory_sol_source(const KernelMetrics& k);

/// True for the units that issue memory instructions (LSU pipe, MIO, the catalog's
/// "LSU/MIO issue"): an SM SOL from them is memory work, classed Memory-Bound (LSU/MIO issue).
bool is_memory_issue_unit(const std::string& unit);

}  // namespace kprof
