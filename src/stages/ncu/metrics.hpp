// kprof's ONE metric catalog: every ncu metric kprof collects, shows or classifies with.
// The runner asks ncu for exactly these (ncu_metric_names()), the summary groups them by
// category, and the classifier (src/analysis) reads them by the names listed here, so the three
// cannot drift apart. Every name was checked against the headers of real `--set full` exports
// from an H200 (tests/data/ncu/*.raw.csv; ncu 2025.3.1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// Sections of ncu_summary.md, in report order.
enum class MetricCategory { SpeedOfLight, Memory, Compute, Occupancy, Launch, Scheduler, Roofline };

/// "Speed of Light", "Memory", "Compute", "Occupancy", "Launch", "Scheduler and warp stalls",
/// "Roofline point".
std::string category_title(MetricCategory c);

/// What a metric's value can be, by its meaning (issue 50): drop_invalid_values
/// (stages/ncu/value_range.hpp) removes a value outside it before any verdict reads it.
enum class ValueKind {
  ByUnit,          ///< from the catalog unit: "%" a share of peak (ValueKind::Share), else a count (NonNegative)
  Share,           ///< a share of peak or a hit rate, % in [-kNegativePercentNoise, 100 + kPercentMargin]
  NonNegative,     ///< a count, bytes, a ratio, a rate: >= 0 and below kCounterCeiling
  Positive,        ///< a time, an elapsed cycle count, a clock: > 0 (a launch takes time) and below kCounterCeiling
  CyclesPerIssue,  ///< cycles between two issued instructions of a warp: >= 1 (ncu's "selected" stall is 1 cycle)
};

/// One catalog entry.
struct MetricSpec {
  const char* name;         ///< exact ncu metric name
  const char* label;        ///< label in reports ("Memory SOL", "L2 hit rate")
  const char* unit;         ///< kprof's unit for it after normalisation ("%", "ns", "byte", "Hz", "" ...)
  MetricCategory category;  ///< summary section
  const char* used_by;      ///< which rule uses it ("class: Memory-Bound", "signal: ...", "roofline", "report")
  bool required;            ///< the primary classification needs it (missing -> no class from it)
  const char* fallback;     ///< ncu name read when `name` is absent (same meaning), or nullptr
  int min_cc;               ///< lowest compute capability (major*10+minor) where ncu has it; 0 = all
  ValueKind kind = ValueKind::ByUnit;  ///< what its value can be (the range check's column)
};

/// The catalog entry whose primary name or fallback is `name`, or nullptr (drop_invalid_values).
const MetricSpec* find_metric_or_fallback(const std::string& name);

/// The catalog, in report order (SOL first).
const std::vector<MetricSpec>& metric_catalog();

/// The entry for `name` (its primary name), or nullptr.
const MetricSpec* find_metric(const std::string& name);

/// The metric names to pass to `ncu --metrics a,b,c`: every catalog name (not the fallbacks),
/// catalog order, no duplicates. `cc` (e.g. 90 for CC 9.0) drops metrics newer than the GPU;
/// 0 keeps all.
std::vector<std::string> ncu_metric_names(int cc = 0);

/// The value of catalog metric `name` for a kernel: the primary column, else the fallback
/// column. `used` (optional) receives the ncu name actually read. nullopt when neither holds a
/// number.
std::optional<double> catalog_value(const KernelMetrics& k, const std::string& name, std::string* used = nullptr);

/// The required catalog metrics (MetricSpec::required) that `k` lacks or holds as n/a / NaN,
/// fallbacks considered; empty when the classification has all it needs. The runner uses it to
/// say "required metrics came back missing/NaN".
std::vector<std::string> missing_required_metrics(const KernelMetrics& k);

/// All catalog metrics (required or not) that `k` lacks, fallbacks considered.
std::vector<std::string> missing_catalog_metrics(const KernelMetrics& k);

/// Warp stall reasons of the smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio
/// family that the catalog holds, e.g. "long_scoreboard", "barrier", "mio_throttle".
const std::vector<std::string>& stall_reasons();

/// The catalog name for stall `reason`:
/// "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio".
std::string stall_metric(const std::string& reason);

/// The ncu names the classifier, the signals and the roofline read (all in the catalog).
namespace metric {
// Speed of Light (ncu section "GPU Speed Of Light Throughput")
inline constexpr const char* kSmSol = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kMemSol = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kDramPct = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kL1Pct = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kL2Pct = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
/// ncu's own breakdown of SM SOL in a .ncu-rep: a text metric, the leaves' names joined by commas
/// (the same name asked for with --metrics collects them).
inline constexpr const char* kSmSolBreakdown = "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed";
/// The same for memory SOL.
inline constexpr const char* kMemSolBreakdown =
    "breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
/// L1 throughput over active cycles: the weight ncu's SharedMemoryConflicts rule uses.
inline constexpr const char* kL1PctActive = "l1tex__throughput.avg.pct_of_peak_sustained_active";
inline constexpr const char* kDuration = "gpu__time_duration.sum";
inline constexpr const char* kSmFreq = "gpc__cycles_elapsed.avg.per_second";
inline constexpr const char* kGpcCyclesMax = "gpc__cycles_elapsed.max";  ///< elapsed cycles of the slowest GPC
inline constexpr const char* kDramFreq = "dram__cycles_elapsed.avg.per_second";
// Memory
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kDramBw = "dram__bytes.sum.per_second";
inline constexpr const char* kDramPeakPerCycle = "dram__bytes.sum.peak_sustained";
inline constexpr const char* kL1Hit = "l1tex__t_sector_hit_rate.pct";
inline constexpr const char* kL2Hit = "lts__t_sector_hit_rate.pct";
inline constexpr const char* kLdSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kLdRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kStSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kStRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kLdBytesPerSector = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio";
inline constexpr const char* kStBytesPerSector = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio";
inline constexpr const char* kLdEfficiencyPct = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
inline constexpr const char* kStEfficiencyPct = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct";
inline constexpr const char* kBankConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum";
inline constexpr const char* kSharedWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum";
inline constexpr const char* kLocalLdSectors = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum";
inline constexpr const char* kLocalStSectors = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum";
/// Warp-level SASS instruction counts of global and shared loads and stores (the reload findings).
inline constexpr const char* kGlobalLdInst = "smsp__sass_inst_executed_op_global_ld.sum";
inline constexpr const char* kGlobalStInst = "smsp__sass_inst_executed_op_global_st.sum";
inline constexpr const char* kSharedLdInst = "smsp__sass_inst_executed_op_shared_ld.sum";
inline constexpr const char* kSharedStInst = "smsp__sass_inst_executed_op_shared_st.sum";
/// Shared-memory load wavefronts.
inline constexpr const char* kSharedLdWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
/// Bank-conflict wavefronts of shared-memory loads alone.
inline constexpr const char* kBankConflictsLd = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
/// MIO instruction issue (shared memory, special registers, ...), % of peak over elapsed cycles.
inline constexpr const char* kMioIssued = "sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed";
// Compute
inline constexpr const char* kPipeFma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeAlu = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeFp64 = "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeTensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeLsu = "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeXu = "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active";
inline constexpr const char* kBranchUniformPct = "smsp__sass_average_branch_targets_threads_uniform.pct";
inline constexpr const char* kDivergentTargets = "smsp__sass_branch_targets_threads_divergent.sum";
inline constexpr const char* kBranchInst = "smsp__inst_executed_op_branch.sum";
inline constexpr const char* kThreadsPerInst = "smsp__thread_inst_executed_per_inst_executed.ratio";
inline constexpr const char* kThreadsPerInstPredOn = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio";
/// Warp-level instructions executed, all SMSPs (inst).
inline constexpr const char* kInstExecuted = "smsp__inst_executed.sum";
// Occupancy and launch
inline constexpr const char* kAchievedOcc = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kTheoreticalOcc = "sm__maximum_warps_per_active_cycle_pct";
inline constexpr const char* kLimitRegisters = "launch__occupancy_limit_registers";
inline constexpr const char* kLimitShared = "launch__occupancy_limit_shared_mem";
inline constexpr const char* kLimitWarps = "launch__occupancy_limit_warps";
inline constexpr const char* kLimitBlocks = "launch__occupancy_limit_blocks";
inline constexpr const char* kLimitBarriers = "launch__occupancy_limit_barriers";
/// Prefix of the per-resource block limits above: + "registers", "shared_mem", "warps", ...
inline constexpr const char* kLimitPrefix = "launch__occupancy_limit_";
/// The block-limit family as reports name it (blocks per SM, the smallest binds).
inline constexpr const char* kLimitFamily = "launch__occupancy_limit_*";
inline constexpr const char* kGridSize = "launch__grid_size";
inline constexpr const char* kBlockSize = "launch__block_size";
inline constexpr const char* kRegsPerThread = "launch__registers_per_thread";
inline constexpr const char* kSmCount = "launch__sm_count";
inline constexpr const char* kWaves = "launch__waves_per_multiprocessor";
// Identity of a launch in a .ncu-rep (the CSV export has them as columns; ncu_rep_table.cpp)
inline constexpr const char* kBlockDimPrefix = "launch__block_dim";  ///< + "_x" / "_y" / "_z"
inline constexpr const char* kGridDimPrefix = "launch__grid_dim";    ///< + "_x" / "_y" / "_z"
inline constexpr const char* kDeviceId = "launch__device_id";
inline constexpr const char* kCcMajor = "device__attribute_compute_capability_major";
inline constexpr const char* kCcMinor = "device__attribute_compute_capability_minor";
/// The GPU's product name ("NVIDIA H200"; a text column).
inline constexpr const char* kDeviceName = "device__attribute_display_name";
// Scheduler
inline constexpr const char* kIssueActive = "smsp__issue_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kEligibleWarps = "smsp__warps_eligible.avg.per_cycle_active";
inline constexpr const char* kWarpLatency = "smsp__average_warp_latency_per_inst_issued.ratio";
/// Prefix of the warp stall family (stall_metric(): + reason + "_per_issue_active.ratio").
inline constexpr const char* kStallPrefix = "smsp__average_warps_issue_stalled_";
/// The warp stall family as reports name it (cycles per issued instruction, one metric per reason).
inline constexpr const char* kStallFamily = "smsp__average_warps_issue_stalled_*_per_issue_active.ratio";
// Roofline
inline constexpr const char* kSmspCycles = "smsp__cycles_elapsed.avg";
inline constexpr const char* kFfmaPeak = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained";
inline constexpr const char* kDfmaPeak = "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained";
inline constexpr const char* kHfmaPeak = "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained";
// Dense tensor-core peaks (ops per cycle, GPU), per source type: Hopper's wgmma (hgmma) paths,
// the mma.sync (hmma) paths, and the FP64/FP8 paths. sm__ops_path_tensor_src_fp16's own peak is
// the sparse one (8192 per SM per cycle on the H200 against 4096 dense), so it is not used.
inline constexpr const char* kHgmmaFp16Peak = "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum.peak_sustained";
inline constexpr const char* kHgmmaBf16Peak =
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained";
inline constexpr const char* kHgmmaTf32Peak =
    "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained";
inline constexpr const char* kHmmaFp16Peak =
    "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum.peak_sustained";
inline constexpr const char* kHmmaBf16Peak =
    "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained";
inline constexpr const char* kHmmaTf32Peak =
    "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32_sparsity_off.sum.peak_sustained";
inline constexpr const char* kTensorFp64Peak = "sm__ops_path_tensor_src_fp64.sum.peak_sustained";
inline constexpr const char* kTensorFp8Peak = "sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained";
// Tensor-core op counters (ops, GPU), per source type (tensor_op_metrics() lists them).
/// Prefix of the counters below and of their peaks (reports name the family "<prefix>*").
inline constexpr const char* kTensorOpsPrefix = "sm__ops_path_tensor_src_";
/// Tensor ops with FP16 inputs.
inline constexpr const char* kTensorOpsFp16 = "sm__ops_path_tensor_src_fp16.sum";
/// Tensor ops with BF16 inputs, FP32 accumulation.
inline constexpr const char* kTensorOpsBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
/// Tensor ops with TF32 inputs, FP32 accumulation.
inline constexpr const char* kTensorOpsTf32 = "sm__ops_path_tensor_src_tf32_dst_fp32.sum";
/// Tensor ops with FP64 inputs.
inline constexpr const char* kTensorOpsFp64 = "sm__ops_path_tensor_src_fp64.sum";
/// Tensor ops with FP8 inputs, dense.
inline constexpr const char* kTensorOpsFp8 = "sm__ops_path_tensor_src_fp8_sparsity_off.sum";
/// Tensor ops with FP8 inputs, sparse.
inline constexpr const char* kTensorOpsFp8Sparse = "sm__ops_path_tensor_src_fp8_sparsity_on.sum";
// Hierarchical roofline: L2 traffic in sectors, and the L2 / L1 peaks as ncu's full-set roofline
// derives them (derived__lts__lts2xbar_bytes = lts2xbar cycles x 32 B; derived__l1tex__lsu_
// writeback_bytes_mem_lgds = LSU writeback cycles x 128 B), from counters in ncu's full set.
inline constexpr const char* kL2Sectors = "lts__t_sectors.sum";
inline constexpr const char* kL2XbarPeak = "lts__lts2xbar_cycles_active.sum.peak_sustained";
inline constexpr const char* kL2Freq = "lts__cycles_elapsed.avg.per_second";
inline constexpr const char* kL1WritebackPeak = "l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained";
inline constexpr const char* kL1Freq = "l1tex__cycles_elapsed.avg.per_second";
// Asynchronous copies: LDGSTS (cp.async, global -> shared without registers) and TMA (bulk
// tensor copies). They do not count in the LDG bytes-per-sector ratios above.
/// LDGSTS instructions executed (warp level).
inline constexpr const char* kLdgstsInst = "smsp__inst_executed_op_ldgsts.sum";
/// Global sectors LDGSTS read through L1 (cache access) and around it (bypass).
inline constexpr const char* kLdgstsSectorsAccess =
    "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum";
inline constexpr const char* kLdgstsSectorsBypass =
    "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum";
/// Bytes TMA loads brought from global memory into L1/shared memory.
inline constexpr const char* kTmaLdBytes = "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum";
/// TMA pipe instructions (% of peak, active cycles).
inline constexpr const char* kPipeTma = "sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active";
// Extra SM pipes that ncu's SOL breakdown names (instruction issue % of peak, active cycles)
/// ADU: barriers (BAR), branches resolved per block, constant loads through the ADU.
inline constexpr const char* kPipeAdu = "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active";
/// CBU: the convergence barrier unit (warp-level branches, BSSY/BSYNC, WARPSYNC).
inline constexpr const char* kPipeCbu = "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active";
/// The uniform datapath (warp-uniform integer work).
inline constexpr const char* kPipeUniform = "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active";
// PC sampling: per-instruction counters of ncu's SourceCounters section (not in the catalog;
// stages/analysis/hot_lines.hpp reads them)
/// Warp samples at an instruction (every smsp__pcsamp_interval_cycles one warp's PC is sampled).
inline constexpr const char* kPcSamples = "smsp__pcsamp_sample_count";
/// Prefix of the samples per stall reason: + reason ("long_scoreboard", ...).
inline constexpr const char* kPcStallPrefix = "smsp__pcsamp_warps_issue_stalled_";
/// ncu's metric group of the per-reason stall samples (the section file asks for it).
inline constexpr const char* kPcStallReasons = "smsp__pcsamp_warp_stall_reasons";
/// Divergent branch targets at an instruction (threads).
inline constexpr const char* kPcDivergentTargets = "smsp__branch_targets_threads_divergent";
}  // namespace metric

/// One leaf of a Speed-of-Light breakdown: a metric (% of peak over elapsed cycles) and the unit
/// of the SM or of the memory system it measures. SM SOL (sm__throughput) and memory SOL
/// (gpu__compute_memory_throughput) are each the maximum of their leaves: ncu's `breakdown:`
/// expansion of the two metrics, as ncu 2025.3.1 lists it in its H200 reports (kSmSolBreakdown,
/// kMemSolBreakdown; every SOL of the 16 reports under tests/data equals its largest leaf). Used
/// where a report lacks ncu's own list (CSV exports).
struct SolLeaf {
  const char* name;  ///< exact ncu metric name (".avg.pct_of_peak_sustained_elapsed")
  const char* unit;  ///< "ADU pipe", "LSU pipe", "MIO", "Issue slots", "L1/TEX", "L2", "DRAM", ...
};

/// The leaves of SM SOL: every pipe (ADU, ALU, CBU, FMA, FMA heavy, FP64, IPA, LSU, TEX, TMA,
/// uniform, XU, tensor, the shared pipe), MIO issue and its queues, the issue slots, the
/// indexed-constant cache (IDC), ncu's internal-activity terms.
const std::vector<SolLeaf>& sm_sol_leaves();

/// The leaves of memory SOL: the L1/TEX stages (data banks, wavefronts, writeback, requests, the
/// L1-to-crossbar paths), the L2 slices (tag, data, crossbar), DRAM (dram__cycles_active,
/// fbpa__dram_sectors).
const std::vector<SolLeaf>& memory_sol_leaves();

/// The `breakdown:` requests that make ncu collect the leaves above with --metrics:
/// metric::kSmSolBreakdown and metric::kMemSolBreakdown.
const std::vector<std::string>& sol_breakdown_requests();

/// The unit of a leaf of either list above ("ADU pipe", "L2", ...); "" for a name not in them.
std::string sol_leaf_unit(const std::string& leaf);

/// The catalog name of the thread-instruction rate of op `op` ("fadd", "ffma", "hfma", ...):
/// "smsp__sass_thread_inst_executed_op_" + op + "_pred_on.sum.per_cycle_elapsed" (inst/cycle;
/// times smsp__cycles_elapsed.avg gives the count, as ncu's roofline does).
std::string thread_inst_rate_metric(const std::string& op);

/// The tensor-core op counters in the catalog (sm__ops_path_tensor_src_*.sum).
const std::vector<std::string>& tensor_op_metrics();

}  // namespace kprof
