// The builders of findings.cpp, one per kind of finding (internal to the analysis stage). Each
// returns the finding with its gain, formula, unit and next step, or nullopt when it does not
// apply or an input metric is missing. Memory-side builders live in findings_memory.cpp, the
// compute and latency ones in findings_compute.cpp.
#pragma once

#include <optional>
#include <string>

#include "stages/analysis/finding_catalog.hpp"
#include "stages/analysis/limiter.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof::detail {

/// A finding of catalog row `id` (its key, title and ncu sections) with its next step; scope "global".
Finding make_finding(FindingId id, const char* step);

/// Sets the finding's gain from a unit gain: gain, unit, share and the formula (`what` states
/// what is removed, e.g. "excess sectors 28 of 33 per request pair").
void set_unit_gain(Finding& f, const UnitGain& g, const std::string& what);

// ---- memory side (findings_memory.cpp) ----
/// Excess global sectors (uncoalesced loads or stores): at L1/TEX the excess share of its work,
/// at L2 ncu's form (1 - used/32) x (1 - L1 hit); the larger.
std::optional<Finding> uncoalesced(const KernelMetrics& k, bool loads);
/// Shared-memory bank conflicts: the conflict wavefronts' share of L1/TEX's work.
std::optional<Finding> bank_conflicts(const KernelMetrics& k);
/// Local-memory traffic (spills, local arrays).
std::optional<Finding> local_memory(const KernelMetrics& k);
/// Reloads served by L1: reused global data loaded again and again (stage tiles in shared memory).
std::optional<Finding> global_reloads(const KernelMetrics& k, std::optional<double> footprint);
/// Shared loads per FFMA high (several outputs per thread: register blocking).
std::optional<Finding> shared_reloads(const KernelMetrics& k);
/// Narrow (under 128-bit) global and shared loads (vector loads issue fewer LSU instructions).
std::optional<Finding> vector_loads(const KernelMetrics& k);
/// Reused data that misses L1 (`l1`) or L2.
std::optional<Finding> hit_rate(const KernelMetrics& k, bool l1, std::optional<double> footprint);

// ---- compute and latency side (findings_compute.cpp) ----
/// Threads idle in executed instructions.
std::optional<Finding> divergence(const KernelMetrics& k);
/// A compute pipe near its peak: the precision's peak is the limit (stop, or tensor cores).
std::optional<Finding> pipe_peak(const KernelMetrics& k);
/// A stall finding's share (its row's stall_reason), capped by the issue headroom.
std::optional<Finding> stall(const KernelMetrics& k, FindingId id, const char* step);
/// Idle issue slots (latency not hidden).
std::optional<Finding> issue_slots(const KernelMetrics& k);
/// Occupancy (Occupancy-Bound only).
std::optional<Finding> occupancy(const KernelMetrics& k);
/// The ADU pipe (block barriers, branches, constant loads) is the busiest unit and busy
/// (>= threshold::kBusyUnitPct): at most all of its work removed, capped by the next busiest unit.
std::optional<Finding> adu_barriers(const KernelMetrics& k);
/// Instruction-level parallelism: dependency stalls (wait, short scoreboard) hold a compute-bound
/// kernel below its pipe's peak (>= threshold::kDependencyStallPct of the stall cycles; the busiest
/// math pipe under threshold::kVeryHighPipePct). Gain: min(their share of the warp cycles,
/// 100% - the busiest unit).
std::optional<Finding> ilp(const KernelMetrics& k);

}  // namespace kprof::detail
