// Quantities the classifier derives from catalog metrics (src/stages/ncu/metrics.hpp): which memory
// unit is behind memory SOL, the occupancy limiter, waves per SM, ranked stall reasons, the
// busiest pipe, coalescing, and the roofline point. Each returns what it could compute; a
// missing input leaves the field empty (never a guessed value).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// The Speed of Light readings, all in % of peak.
struct SolReading {
  std::optional<double> sm;     ///< sm__throughput.avg.pct_of_peak_sustained_elapsed
  std::optional<double> mem;    ///< gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
  std::optional<double> dram;   ///< gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
  std::optional<double> l1;     ///< l1tex__throughput (elapsed, else ncu's SOL header's "active")
  std::optional<double> l2;     ///< lts__throughput.avg.pct_of_peak_sustained_elapsed
  std::string l1_metric;        ///< the L1 name actually read
  bool mem_from_units = false;  ///< memory SOL missing: taken as the highest of DRAM/L1/L2
};
/// Reads the SOL metrics of `k` (L1 falls back to the "active" variant; memory SOL, when
/// missing, to the highest of DRAM/L1/L2 with `mem_from_units` set).
SolReading read_sol(const KernelMetrics& k);

/// The memory unit named for Memory-Bound: the one of DRAM, L1, L2 whose throughput equals
/// memory SOL within threshold::kUnitMatchPts (the closest when several), else the highest.
struct MemoryUnit {
  std::string name;          ///< "DRAM", "L1", "L2"
  std::string metric;        ///< its ncu metric
  double pct = 0;            ///< its throughput, %
  bool matches_sol = false;  ///< true when it equals memory SOL within kUnitMatchPts
};
std::optional<MemoryUnit> memory_unit(const SolReading& s);

/// The resource that limits blocks per SM (launch__occupancy_limit_*, in blocks): the smallest
/// limit; ties name every tied resource.
struct OccupancyLimiter {
  std::vector<std::string>
      resources;             ///< "registers", "shared memory", "warps per SM (block size)", "blocks per SM", "barriers"
  double blocks_per_sm = 0;  ///< the limit, blocks per SM
  std::string text() const;  ///< "registers (10 blocks per SM)"
};
/// The limiter; nullopt unless the register, shared-memory and warp limits were collected.
std::optional<OccupancyLimiter> occupancy_limiter(const KernelMetrics& k);

/// Waves per SM: grid / (SMs x blocks per SM) when launch__grid_size, launch__sm_count and the
/// block limits are there (ncu prints launch__waves_per_multiprocessor with 2 decimals: 0.00 for
/// one block), else launch__waves_per_multiprocessor. `how` receives the formula or metric used.
std::optional<double> waves_per_sm(const KernelMetrics& k, std::string* how = nullptr);

/// One warp stall reason: cycles per issued instruction and its share of all warp cycles per
/// issued instruction (smsp__average_warp_latency_per_inst_issued.ratio, else the sum of reasons).
struct StallShare {
  std::string reason;    ///< "long_scoreboard"
  std::string metric;    ///< its ncu metric
  double cycles = 0;     ///< cycles per issued instruction
  double share_pct = 0;  ///< % of the warp cycles between two issued instructions
};
/// All collected stall reasons except "selected" (issuing is not a stall), largest first.
std::vector<StallShare> ranked_stalls(const KernelMetrics& k);
/// The share of `reason`, or nullopt when not collected.
std::optional<StallShare> stall_share(const KernelMetrics& k, const std::string& reason);

/// One pipe's utilization (% of peak sustained, active cycles).
struct PipeUse {
  std::string name;  ///< "FMA", "ALU", "FP64", "Tensor", "LSU", "XU"
  std::string metric;
  double pct = 0;
};
/// The collected pipe utilizations, busiest first.
std::vector<PipeUse> pipe_utilizations(const KernelMetrics& k);

/// Global-memory coalescing for loads or stores.
struct Coalescing {
  std::optional<double> efficiency_pct;             ///< bytes used per 32-byte sector / 32 x 100
  std::optional<double> bytes_per_sector;           ///< ..._bytes_per_sector_mem_global_op_*.ratio
  std::optional<double> sectors_per_request;        ///< l1tex__t_sectors_* / l1tex__t_requests_*
  std::optional<double> ideal_sectors_per_request;  ///< ceil(bytes used per request / 32)
  std::optional<double> requests;                   ///< l1tex__t_requests_* (0: no such access)
  std::string efficiency_metric;                    ///< the ncu name the efficiency came from
};
/// Coalescing of global loads (`loads`) or stores; reads the .ratio metric, else a .pct one.
Coalescing coalescing(const KernelMetrics& k, bool loads);

/// The kernel's asynchronous copies into shared memory: LDGSTS (cp.async: global -> shared without
/// registers) and TMA (bulk tensor copies). Their bytes bypass the LDG counters
/// (l1tex__t_*_mem_global_op_ld, smsp__sass_average_data_bytes_per_sector_mem_global_op_ld), so
/// ratios of those counters say nothing about them.
struct AsyncCopies {
  double ldgsts_inst = 0;     ///< smsp__inst_executed_op_ldgsts.sum (warp level)
  double ldgsts_sectors = 0;  ///< sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_{access,bypass}.sum
  double tma_bytes = 0;       ///< l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum, bytes
  /// "the kernel loads through asynchronous copies (TMA 1.61 GB from global memory), which the
  /// LDG ratios do not count".
  std::string text() const;
};
/// nullopt when the kernel made no LDGSTS nor TMA load (or the counters were not collected).
std::optional<AsyncCopies> async_copies(const KernelMetrics& k);

/// How often the kernel's loads request the same bytes: the bytes its threads load (global load
/// sectors x bytes used per sector, plus local load sectors x 32) against the footprint (the
/// bytes the call's buffers hold when kprof knows them, else the DRAM bytes read: an upper bound
/// of the footprint, so the reuse is then a lower bound). A pure stream reads each byte once:
/// factor ~1; so does an uncoalesced gather that reads each element once (its extra sectors are
/// waste, which the coalescing signal reports, not reuse).
struct LoadReuse {
  double requested_bytes =
      0;  ///< l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum x ..._bytes_per_sector_mem_global_op_ld.ratio + local load sectors x 32
  double footprint_bytes = 0;
  std::string footprint_how;  ///< "the call's buffers" or "dram__bytes_read.sum"
  double factor = 0;          ///< requested / footprint
};
/// nullopt when the load sectors or the footprint are missing or zero.
std::optional<LoadReuse> load_reuse(const KernelMetrics& k, std::optional<double> footprint_bytes);

/// A roofline point. FLOPs follow ncu's roofline: FADD, FMUL = 1, FFMA = 2 (same for FP64),
/// HADD, HMUL = 2 and HFMA = 4 (packed half2), from the thread-instruction rates
/// (…_pred_on.sum.per_cycle_elapsed) times smsp__cycles_elapsed.avg. Tensor ops are ncu's own
/// count (sm__ops_path_tensor_src_*.sum), shown separately and added to the total.
struct Roofline {
  std::optional<double> fp32_flop, fp64_flop, fp16_flop;  ///< FLOPs per precision
  std::optional<double> tensor_ops;                       ///< tensor-core ops (ncu's count)
  std::optional<double> total_flop;                       ///< sum of the above that were collected
  std::optional<double> dram_bytes;                       ///< dram__bytes_read.sum + dram__bytes_write.sum
  std::optional<double> intensity;                        ///< total_flop / dram_bytes, FLOP/byte
  std::optional<double> flop_per_s;                       ///< total_flop / gpu__time_duration
  std::optional<double> dram_bytes_per_s;                 ///< dram_bytes / gpu__time_duration
  std::optional<double> fp32_peak_pct;                    ///< FP32 FLOP/cycle / (2 x FFMA peak per cycle) x 100
  std::optional<double> peak_dram_bytes_per_s;            ///< dram__bytes.sum.peak_sustained x DRAM frequency
};
/// The roofline point of `k`; fields stay empty when their inputs are missing.
Roofline roofline_point(const KernelMetrics& k);

}  // namespace kprof
