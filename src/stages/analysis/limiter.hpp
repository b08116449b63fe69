// Which unit of the GPU limits a kernel, and how much of that unit's work a fix removes. The
// units are the ones Nsight Compute's Speed of Light breakdown and Compute Workload Analysis
// report: DRAM, L2, L1/TEX (shared memory included), LSU/MIO instruction issue, the compute pipes
// and the schedulers' issue slots. A finding removes a share of one unit's work; its gain is that
// share times the unit's busy time, capped by the busiest unit the fix leaves as it is
// (docs/CLASSIFICATION.md "Findings from the limiter").
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// One unit and how busy it is, % of its peak.
struct UnitLoad {
  std::string name;      ///< "DRAM", "L2", "L1/TEX", "LSU/MIO issue", "FMA pipe", "Issue slots", ...
  std::string metric;    ///< the ncu metric its value comes from
  double pct = 0;        ///< % of peak (elapsed for DRAM, L2, L1/TEX; active cycles for pipes and issue)
  bool compute = false;  ///< a math pipe (FMA, ALU, FP64, Tensor, XU); LSU is memory instruction issue
};

/// Every collected unit, busiest first. DRAM `gpu__dram_throughput`, L2 `lts__throughput`, L1/TEX
/// `l1tex__throughput` (elapsed), LSU/MIO issue the larger of `sm__inst_executed_pipe_lsu`
/// (active) and `sm__mio_inst_issued` (elapsed), the pipes `sm__pipe_*_cycles_active` /
/// `sm__inst_executed_pipe_xu`, the ADU, CBU, uniform and TMA pipes
/// `sm__inst_executed_pipe_{adu,cbu,uniform,tma}` (active), issue slots `smsp__issue_active`.
std::vector<UnitLoad> unit_loads(const KernelMetrics& k);

/// The busiest unit, nullopt when none was collected.
std::optional<UnitLoad> limiting_unit(const KernelMetrics& k);

/// True when some unit is at least threshold::kBusyUnitPct busy: latency-hiding advice (more
/// warps, idle issue slots) then does not lead.
bool some_unit_busy(const KernelMetrics& k);

/// The work the L1/TEX unit does, in its own steps (kprof's count): tag-stage sectors of global
/// and local loads and stores plus data-stage wavefronts (`l1tex__data_pipe_lsu_wavefronts.sum`,
/// else the shared-memory wavefronts plus one wavefront per global load request).
struct L1Work {
  double global_ld_sectors = 0, global_st_sectors = 0, local_sectors = 0;
  double wavefronts = 0;         ///< all data-stage wavefronts (global, local, shared)
  double shared_wavefronts = 0;  ///< l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  double total() const { return global_ld_sectors + global_st_sectors + local_sectors + wavefronts; }
  std::string how;  ///< the metrics it came from
};
/// nullopt when neither global sectors nor shared wavefronts were collected.
std::optional<L1Work> l1_work(const KernelMetrics& k);

/// A gain estimated at one unit: `share` of the unit's work removed (0..1) times the unit's busy
/// fraction, capped at 1 - the busiest unit among those the fix does not relieve.
struct UnitGain {
  std::string unit;                ///< the unit whose work is removed
  double unit_pct = 0;             ///< its busy %, as collected
  double share_pct = 0;            ///< % of its work the fix removes
  double gain_pct = 0;             ///< min(share x unit, cap), % of the kernel's time
  std::optional<UnitLoad> capped;  ///< the unit that capped it (when the cap bit)
  std::string text;                ///< "removes 85% of L1/TEX's work x L1/TEX 98.5% busy = 83.7%; ..."
};

/// The gain of removing `share` (0..1) of `unit`'s work; `relieved` names the units whose work the
/// fix also lowers (they do not cap it). nullopt when `unit` was not collected.
std::optional<UnitGain> gain_at_unit(const KernelMetrics& k, const std::string& unit, double share,
                                     const std::set<std::string>& relieved);

/// The larger of several unit gains (a fix that lowers the work of several units is worth what it
/// saves at the one where it saves most). nullopt when all are empty.
std::optional<UnitGain> best_gain(std::initializer_list<std::optional<UnitGain>> gains);

/// FFMA thread instructions the kernel executed (`smsp__sass_thread_inst_executed_op_ffma_pred_on`
/// rate x `smsp__cycles_elapsed.avg`), divided by 32: the warp-level FFMA count that load
/// instructions are compared with. nullopt when not collected or zero.
std::optional<double> warp_ffma_count(const KernelMetrics& k);

}  // namespace kprof
