// Every threshold the classifier and the secondary signals use, with its source. They appear in
// the reports next to the measured value. docs/CLASSIFICATION.md explains each decision.
#pragma once

namespace kprof::threshold {

// ---- Primary classes (seed: "Bottleneck Classification" table) -------------------------------
/// Seed: "Memory SOL > 60% and much higher than SM SOL" -> Memory-Bound (and the symmetric
/// Compute-Bound row). Unit: % of peak (sm__throughput / gpu__compute_memory_throughput).
inline constexpr double kBoundSolPct = 60.0;
/// "Much higher" in the seed's table, made a number: at least this many percentage points
/// above the other SOL. A documented kprof choice.
inline constexpr double kMuchHigherPts = 20.0;
/// Compute-Bound also when SM SOL > kBoundSolPct while memory SOL is not (without the
/// "much higher" lead) and one pipe (sm__pipe_*_cycles_active / sm__inst_executed_pipe_*,
/// % of peak over active cycles) is at least this busy: that pipe is saturated, so it, not the
/// memory system, sets the time (ncu's Compute Workload Analysis reads a pipe this busy as the
/// limiter). A kprof rule: without it a CUTLASS tensor-core GEMM on the H200 (SM SOL 76.8%,
/// memory SOL 58.1%, tensor pipe 80.4%, theoretical occupancy 12.5% by design) is called
/// Occupancy-Bound.
inline constexpr double kSaturatedPipePct = 60.0;
/// Seed: "Both SM SOL and Memory SOL < 40%" -> Latency-Bound.
inline constexpr double kLatencySolPct = 40.0;
/// Occupancy-Bound, seed row "achieved occupancy far below theoretical": "far below" means
/// achieved < this fraction of theoretical (kprof choice, decided by the lead).
inline constexpr double kAchievedFractionOfTheoretical = 0.5;
/// Occupancy-Bound also when theoretical occupancy itself is below this % (kprof choice, lead).
/// Occupancy is only blamed when neither SOL exceeds kBoundSolPct: with a unit near its peak,
/// more warps would not help (kernels like tensor-core GEMMs run at low occupancy by design).
inline constexpr double kLowTheoreticalOccupancyPct = 50.0;
/// The Occupancy-Bound rules need the grid to fill at least this many waves per SM
/// (launch__waves_per_multiprocessor); with fewer, more resident warps would not be used.
inline constexpr double kMinWavesForOccupancy = 1.0;
/// A tail effect (the last wave at most half full) is named only for grids of at most this many
/// waves per SM: with more, one partial wave is a small share of the time (kprof choice).
inline constexpr double kMaxWavesForTail = 4.0;
/// Latency-Bound cause "too few blocks": waves per SM below this (one full wave).
inline constexpr double kFewWaves = 1.0;
/// Latency-Bound cause "few eligible warps": smsp__warps_eligible.avg.per_cycle_active below
/// this (a scheduler needs one eligible warp per cycle to issue every cycle; lead's decision).
inline constexpr double kFewEligibleWarps = 1.0;
/// Memory-Bound names the unit (DRAM, L1, L2) whose throughput equals memory SOL within this
/// many percentage points, else the highest (lead's decision; ncu's memory SOL is their max
/// over its memory units, and L2 also carries DRAM traffic).
inline constexpr double kUnitMatchPts = 1.0;
/// A unit named as the source of SM or memory SOL must account for it: its own % of peak within
/// this many points of the SOL (issue 42's rule; ncu's SOL is the maximum of its breakdown, so the
/// source of a SOL collected whole is within rounding of it). Farther: "source not identified".
inline constexpr double kSolSourcePts = 5.0;
/// Latency-Bound lists this many leading stall reasons.
inline constexpr int kTopStalls = 2;

// ---- Findings from the limiter (docs/CLASSIFICATION.md "Findings from the limiter") ------------
/// A unit at least this busy (% of peak) is "busy": it, not latency, sets the time, and
/// latency-hiding advice (idle issue slots, more warps, occupancy) does not lead. The seed's 60%
/// SOL threshold, applied per unit.
inline constexpr double kBusyUnitPct = 60.0;
/// Reloads served by L1: the L1 hit rate (l1tex__t_sector_hit_rate.pct) from which repeated global
/// loads count as reuse that shared-memory tiles would serve (kprof choice: most reloads hit).
inline constexpr double kL1ReloadHitPct = 50.0;
/// Shared-memory reloads: shared-load wavefronts (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld)
/// per warp-level FFMA at or above this fire the register-blocking finding. 0.25 is the balance
/// point of an SM: the L1 data stage serves 1 wavefront per cycle while the FMA pipes take 4 warp
/// FFMAs per cycle (4 SMSPs x 32 lanes; H200 and every SM since Volta), so above it shared loads
/// take more cycles than the FFMAs they feed.
inline constexpr double kSharedWavefrontsPerFfma = 0.25;
/// The shared-load wavefronts per warp FFMA the estimate assumes register blocking reaches: half
/// the balance point (an 8 x 8 tile per thread read with 128-bit loads gets there; kprof choice).
inline constexpr double kBlockedWavefrontsPerFfma = 0.125;
/// The widest load a thread issues (LDG.128 / LDS.128), bytes: narrower loads issue more LSU
/// instructions for the same bytes.
inline constexpr double kVectorLoadBytes = 16.0;

/// Findings whose estimated gain (after the cap) is below this % of the kernel's time are
/// listed on one "negligible" line, not ranked beside real ones (issue 42; kprof choice: 1%,
/// below the run-to-run noise of a timed kernel).
inline constexpr double kNegligibleGainPct = 1.0;
/// Latency findings (idle issue slots, a stall reason, occupancy) whose gains agree within this
/// many points share their root, the issue headroom, and become one finding (kprof choice).
inline constexpr double kSameGainPts = 0.05;
/// Dependency stalls (wait: fixed-latency dependency; short scoreboard: MIO results) at or above
/// this share of the stall cycles (selected and not_selected excluded: those warps were ready)
/// fire the instruction-level-parallelism finding on a compute-bound kernel below its pipe's peak
/// (kprof choice: kExplainingStallPct's 20%; the FMA fixture's wait stalls are 24% of them).
inline constexpr double kDependencyStallPct = 20.0;

// ---- Secondary signals (seed: "Secondary signals" table) -------------------------------------
/// Seed: "Global Load/Store Efficiency < 100%". kprof fires below 95%: bytes used per 32-byte
/// sector (smsp__sass_average_data_bytes_per_sector_mem_global_op_{ld,st}.ratio / 32); the
/// 5 points leave room for partial sectors at array ends. A 4-byte misalignment gives 80%.
inline constexpr double kMinGlobalEfficiencyPct = 95.0;
/// Bytes in one L1/L2 sector (ncu's "sector"), the denominator of efficiency.
inline constexpr double kSectorBytes = 32.0;
/// Seed: "L1/L2 hit rate too low" (no number). kprof choice: L1 below 20%.
inline constexpr double kLowL1HitPct = 20.0;
/// Seed: "L1/L2 hit rate too low" (no number). kprof choice: L2 below 50%.
inline constexpr double kLowL2HitPct = 50.0;
/// Seed: "bank conflicts high". kprof choice: conflicts above 10% of shared wavefronts
/// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum / l1tex__data_pipe_lsu_wavefronts_mem_shared.sum).
inline constexpr double kHighBankConflictPct = 10.0;
/// Seed: "Issue slot utilization < 50%" (smsp__issue_active.avg.pct_of_peak_sustained_active).
inline constexpr double kLowIssueSlotPct = 50.0;
/// Seed: "Eligible warps per cycle low". kprof: below 1 per scheduler (as kFewEligibleWarps).
inline constexpr double kLowEligibleWarps = kFewEligibleWarps;
/// Seed: "Register spill > 0": local-memory sectors (loads + stores) above 0.
inline constexpr double kSpillSectors = 0.0;
/// Seed: "Stall Long Scoreboard high" / "Stall Barrier high" (no number). kprof choice: the
/// reason takes at least 30% of the warp cycles between two issued instructions
/// (smsp__average_warp_latency_per_inst_issued.ratio), the share ncu's own rule quotes.
inline constexpr double kHighStallSharePct = 30.0;
/// Seed: "Branch efficiency < 100%". kprof fires below 95%
/// (smsp__sass_average_branch_targets_threads_uniform.pct): one bounds check in a partial last
/// warp should not fire.
inline constexpr double kMinBranchEfficiencyPct = 95.0;
/// The L1 and L2 hit-rate rows fire only where data is reused: the loads request at least this
/// many times the footprint (derived.hpp load_reuse). A stream reads each byte once (factor ~1)
/// and cannot hit, so a low hit rate is not a finding there (kprof choice: without it the L1
/// row fires on nearly every real export).
inline constexpr double kMinReuseForHitRate = 2.0;
/// Thread divergence / predication: fewer than this many threads of 32 active per executed
/// instruction (smsp__thread_inst_executed_per_inst_executed.ratio or its not-predicated-off
/// twin, the smaller). ncu's ThreadDivergence rule uses the same 24.
inline constexpr double kMinThreadsPerInst = 24.0;
/// Mixed names a pipe as its limiter when the pipe is at least this busy (ncu's
/// HighPipeUtilization calls a pipe above 80% "very high"): a kernel at its limit on two units.
inline constexpr double kVeryHighPipePct = 80.0;
/// A stall reason is named in the verdict when it takes at least this share of the warp cycles
/// and points at the limiter or at a firing finding (kprof choice).
inline constexpr double kExplainingStallPct = 20.0;
/// Seed: "divergent branches high" (no number). kprof choice: divergent branch targets above 5%
/// of executed branch instructions.
inline constexpr double kHighDivergentBranchPct = 5.0;

}  // namespace kprof::threshold
