#include "stages/ncu/metrics.hpp"
#include "core/enum_names.hpp"

#include <set>

namespace kprof {

namespace {

using C = MetricCategory;
namespace m = metric;

// Stall entries share their wording; `used_by` says which conclusion reads them.
#define KPROF_STALL(reason, label, used)                                                             \
  MetricSpec {                                                                                       \
    "smsp__average_warps_issue_stalled_" reason "_per_issue_active.ratio",                           \
        "Stall " label " (cycles per issued instruction)", "", C::Scheduler, used, false, nullptr, 0 \
  }

const std::vector<MetricSpec> kCatalog = {
    // ---- Speed of Light: the seed's primary table ----------------------------------------------
    {m::kSmSol, "SM SOL (Compute (SM) Throughput)", "%", C::SpeedOfLight, "class: all rows (SM SOL)", true, nullptr, 0},
    {m::kMemSol, "Memory SOL (Memory Throughput)", "%", C::SpeedOfLight, "class: all rows (memory SOL)", true, nullptr,
     0},
    {m::kDramPct, "DRAM throughput", "%", C::SpeedOfLight, "class: Memory-Bound names the unit", true, nullptr, 0},
    {m::kL1Pct, "L1/TEX throughput", "%", C::SpeedOfLight, "class: Memory-Bound names the unit", true,
     "l1tex__throughput.avg.pct_of_peak_sustained_active", 0},
    {m::kL2Pct, "L2 throughput", "%", C::SpeedOfLight, "class: Memory-Bound names the unit", true, nullptr, 0},
    {m::kL1PctActive, "L1/TEX throughput (active cycles)", "%", C::SpeedOfLight,
     "finding: bank conflicts (ncu's weight)", false, nullptr, 0},
    {m::kDuration, "GPU time (duration under ncu)", "ns", C::SpeedOfLight, "call: leading kernel; roofline", true,
     nullptr, 0, ValueKind::Positive},
    {"gpc__cycles_elapsed.max", "Elapsed cycles", "cycle", C::SpeedOfLight, "report", false, nullptr, 0,
     ValueKind::Positive},
    {"sm__cycles_active.avg", "SM active cycles", "cycle", C::SpeedOfLight, "report", false, nullptr, 0},
    {m::kSmFreq, "SM frequency", "Hz", C::SpeedOfLight, "report", false, nullptr, 0, ValueKind::Positive},
    {m::kDramFreq, "DRAM frequency", "Hz", C::SpeedOfLight, "roofline (peak bandwidth)", false, nullptr, 0,
     ValueKind::Positive},
    // ---- Memory ---------------------------------------------------------------------------------
    {m::kDramRead, "DRAM bytes read", "byte", C::Memory, "roofline", false, nullptr, 0},
    {m::kDramWrite, "DRAM bytes written", "byte", C::Memory, "roofline", false, nullptr, 0},
    {m::kDramBw, "DRAM bandwidth", "byte/s", C::Memory, "report", false, nullptr, 0},
    {m::kDramPeakPerCycle, "DRAM peak bytes per DRAM cycle", "byte/cycle", C::Memory, "roofline (peak bandwidth)",
     false, nullptr, 0},
    {m::kL1Hit, "L1/TEX hit rate", "%", C::Memory, "signal: L1 hit rate", false, nullptr, 0},
    {m::kL2Hit, "L2 hit rate", "%", C::Memory, "signal: L2 hit rate", false, nullptr, 0},
    {m::kLdSectors, "Global load sectors", "sector", C::Memory, "signal: uncoalesced loads", false, nullptr, 0},
    {m::kLdRequests, "Global load requests", "", C::Memory, "signal: uncoalesced loads", false, nullptr, 0},
    {m::kLdBytesPerSector, "Global load bytes used per sector", "byte/sector", C::Memory, "signal: uncoalesced loads",
     false, nullptr, 0},
    {m::kStSectors, "Global store sectors", "sector", C::Memory, "signal: uncoalesced stores", false, nullptr, 0},
    {m::kStRequests, "Global store requests", "", C::Memory, "signal: uncoalesced stores", false, nullptr, 0},
    {m::kStBytesPerSector, "Global store bytes used per sector", "byte/sector", C::Memory, "signal: uncoalesced stores",
     false, nullptr, 0},
    {m::kBankConflicts, "Shared-memory bank conflicts", "", C::Memory, "signal: bank conflicts", false, nullptr, 0},
    {m::kSharedWavefronts, "Shared-memory wavefronts", "", C::Memory, "signal: bank conflicts", false, nullptr, 0},
    {m::kLocalLdSectors, "Local-memory load sectors (spills)", "sector", C::Memory, "signal: register spill", false,
     nullptr, 0},
    {m::kLocalStSectors, "Local-memory store sectors (spills)", "sector", C::Memory, "signal: register spill", false,
     nullptr, 0},
    // ---- Compute ----------------------------------------------------------------------------------
    {m::kGlobalLdInst, "Global load instructions (warp level)", "inst", C::Memory, "finding: reloads", false, nullptr,
     0},
    {m::kGlobalStInst, "Global store instructions (warp level)", "inst", C::Memory, "finding: vector loads", false,
     nullptr, 0},
    {m::kSharedLdInst, "Shared load instructions (warp level)", "inst", C::Memory, "finding: shared reloads", false,
     nullptr, 0},
    {m::kSharedStInst, "Shared store instructions (warp level)", "inst", C::Memory, "finding: vector loads", false,
     nullptr, 0},
    {m::kSharedLdWavefronts, "Shared load wavefronts", "", C::Memory, "finding: shared reloads", false, nullptr, 0},
    {m::kBankConflictsLd, "Shared load bank conflicts", "", C::Memory, "finding: shared reloads", false, nullptr, 0},
    {m::kMioIssued, "MIO instruction issue", "%", C::Compute, "limiter: LSU/MIO issue", false, nullptr, 0},
    {m::kPipeFma, "FMA pipe utilization", "%", C::Compute, "class: Compute-Bound names the pipe", false, nullptr, 0},
    {m::kPipeAlu, "ALU pipe utilization", "%", C::Compute, "class: Compute-Bound names the pipe", false, nullptr, 0},
    {m::kPipeFp64, "FP64 pipe utilization", "%", C::Compute, "class: Compute-Bound names the pipe", false, nullptr, 0},
    {m::kPipeTensor, "Tensor pipe utilization", "%", C::Compute, "class: Compute-Bound names the pipe", false, nullptr,
     0},
    {m::kPipeLsu, "LSU pipe utilization", "%", C::Compute, "class: Compute-Bound names the pipe", false, nullptr, 0},
    {m::kPipeAdu, "ADU pipe utilization (barriers, branches, constant loads)", "%", C::Compute,
     "limiter: the unit behind SM SOL", false, nullptr, 0},
    {m::kPipeCbu, "CBU pipe utilization (convergence barriers)", "%", C::Compute, "limiter: the unit behind SM SOL",
     false, nullptr, 0},
    {m::kPipeUniform, "Uniform pipe utilization", "%", C::Compute, "limiter: the unit behind SM SOL", false, nullptr,
     0},
    {m::kPipeTma, "TMA pipe utilization", "%", C::Compute, "limiter: the unit behind SM SOL", false, nullptr, 90},
    {m::kLdgstsInst, "LDGSTS instructions (cp.async, warp level)", "inst", C::Memory, "findings: asynchronous copies",
     false, nullptr, 80},
    {m::kLdgstsSectorsAccess, "LDGSTS global sectors through L1", "sector", C::Memory, "findings: asynchronous copies",
     false, nullptr, 80},
    {m::kLdgstsSectorsBypass, "LDGSTS global sectors bypassing L1", "sector", C::Memory,
     "findings: asynchronous copies", false, nullptr, 80},
    {m::kTmaLdBytes, "TMA bytes loaded from global memory", "byte", C::Memory, "findings: asynchronous copies", false,
     nullptr, 90},
    {m::kPipeXu, "XU pipe utilization (transcendentals)", "%", C::Compute, "class: Compute-Bound names the pipe", false,
     nullptr, 0},
    {"sm__inst_executed.avg.per_cycle_active", "Executed IPC (per SM, active cycles)", "inst/cycle", C::Compute,
     "report", false, nullptr, 0},
    {m::kInstExecuted, "Executed instructions", "inst", C::Compute, "report", false, nullptr, 0},
    {m::kThreadsPerInst, "Threads per executed instruction", "", C::Compute, "signal: thread divergence", false,
     nullptr, 0},
    {m::kThreadsPerInstPredOn, "Threads per executed instruction, not predicated off", "", C::Compute,
     "signal: thread divergence", false, nullptr, 0},
    {m::kBranchUniformPct, "Branch efficiency", "%", C::Compute, "signal: warp divergence", false, nullptr, 0},
    {m::kDivergentTargets, "Divergent branch targets", "", C::Compute, "signal: warp divergence", false, nullptr, 0},
    {m::kBranchInst, "Executed branch instructions", "inst", C::Compute, "signal: warp divergence", false, nullptr, 0},
    // ---- Occupancy --------------------------------------------------------------------------------
    {m::kAchievedOcc, "Achieved occupancy", "%", C::Occupancy, "class: Occupancy-Bound", true, nullptr, 0},
    {m::kTheoreticalOcc, "Theoretical occupancy", "%", C::Occupancy, "class: Occupancy-Bound", true, nullptr, 0},
    {"sm__warps_active.avg.per_cycle_active", "Achieved active warps per SM", "warp", C::Occupancy, "report", false,
     nullptr, 0},
    {"sm__maximum_warps_avg_per_active_cycle", "Theoretical active warps per SM", "warp", C::Occupancy, "report", false,
     nullptr, 0},
    {m::kLimitRegisters, "Block limit: registers", "block", C::Occupancy, "class: Occupancy-Bound names the limiter",
     true, nullptr, 0},
    {m::kLimitShared, "Block limit: shared memory", "block", C::Occupancy, "class: Occupancy-Bound names the limiter",
     true, nullptr, 0},
    {m::kLimitWarps, "Block limit: warps (block size)", "block", C::Occupancy,
     "class: Occupancy-Bound names the limiter", true, nullptr, 0},
    {m::kLimitBlocks, "Block limit: blocks per SM", "block", C::Occupancy, "class: Occupancy-Bound names the limiter",
     true, nullptr, 0},
    {m::kLimitBarriers, "Block limit: barriers", "block", C::Occupancy, "class: Occupancy-Bound names the limiter",
     false, nullptr, 90},
    // ---- Launch -----------------------------------------------------------------------------------
    {m::kGridSize, "Grid size (blocks)", "", C::Launch, "class: waves per SM", false, nullptr, 0},
    {m::kBlockSize, "Block size (threads)", "", C::Launch, "report", false, nullptr, 0},
    {"launch__thread_count", "Threads", "thread", C::Launch, "report", false, nullptr, 0},
    {m::kRegsPerThread, "Registers per thread", "register/thread", C::Launch, "report (occupancy, spills)", false,
     nullptr, 0},
    {"launch__shared_mem_per_block_static", "Static shared memory per block", "byte/block", C::Launch, "report", false,
     nullptr, 0},
    {"launch__shared_mem_per_block_dynamic", "Dynamic shared memory per block", "byte/block", C::Launch, "report",
     false, nullptr, 0},
    {m::kSmCount, "SMs", "SM", C::Launch, "class: waves per SM", false, nullptr, 0},
    {m::kWaves, "Waves per SM", "", C::Launch, "class: Occupancy-Bound, Latency-Bound cause", true, nullptr, 0},
    // ---- Scheduler and warp stalls ------------------------------------------------------------
    {m::kIssueActive, "Issue slot utilization", "%", C::Scheduler, "signal: issue slots", false, nullptr, 0},
    {m::kEligibleWarps, "Eligible warps per scheduler per cycle", "warp", C::Scheduler,
     "class: Latency-Bound cause; signal", false, nullptr, 0},
    {"smsp__warps_active.avg.per_cycle_active", "Active warps per scheduler", "warp", C::Scheduler, "report", false,
     nullptr, 0},
    {m::kWarpLatency, "Warp cycles per issued instruction", "cycle", C::Scheduler, "stall shares (denominator)", false,
     nullptr, 0, ValueKind::CyclesPerIssue},
    KPROF_STALL("long_scoreboard", "long scoreboard", "class: Latency-Bound cause; signal"),
    KPROF_STALL("barrier", "barrier", "class: Latency-Bound cause; signal"),
    KPROF_STALL("mio_throttle", "MIO throttle", "class: Latency-Bound cause"),
    KPROF_STALL("short_scoreboard", "short scoreboard", "class: Latency-Bound cause"),
    KPROF_STALL("math_pipe_throttle", "math pipe throttle", "class: Latency-Bound cause"),
    KPROF_STALL("wait", "wait (fixed latency)", "class: Latency-Bound cause"),
    KPROF_STALL("lg_throttle", "LG throttle", "class: Latency-Bound cause"),
    KPROF_STALL("membar", "memory barrier", "class: Latency-Bound cause"),
    KPROF_STALL("branch_resolving", "branch resolving", "class: Latency-Bound cause"),
    KPROF_STALL("dispatch_stall", "dispatch", "class: Latency-Bound cause"),
    KPROF_STALL("drain", "drain", "class: Latency-Bound cause"),
    KPROF_STALL("imc_miss", "IMC miss (constant cache)", "class: Latency-Bound cause"),
    KPROF_STALL("no_instruction", "no instruction", "class: Latency-Bound cause"),
    KPROF_STALL("not_selected", "not selected", "class: Latency-Bound cause"),
    KPROF_STALL("selected", "selected (issuing, not a stall)", "report"),
    KPROF_STALL("sleeping", "sleeping", "class: Latency-Bound cause"),
    KPROF_STALL("tex_throttle", "TEX throttle", "class: Latency-Bound cause"),
    KPROF_STALL("misc", "misc", "class: Latency-Bound cause"),
    MetricSpec{"smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio",
               "Stall GMMA (cycles per issued instruction)", "", C::Scheduler, "class: Latency-Bound cause", false,
               nullptr, 90},
    // ---- Roofline point -------------------------------------------------------------------------
    {m::kSmspCycles, "SMSP elapsed cycles (count base for the rates below)", "cycle", C::Roofline, "roofline", false,
     nullptr, 0, ValueKind::Positive},
    {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", "FADD thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (1 FLOP)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", "FMUL thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (1 FLOP)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", "FFMA thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (2 FLOP)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", "DADD thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (1 FLOP)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", "DMUL thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (1 FLOP)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", "DFMA thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (2 FLOP)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", "HADD thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (2 FLOP, packed)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", "HMUL thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (2 FLOP, packed)", false, nullptr, 0},
    {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", "HFMA thread instructions per cycle",
     "inst/cycle", C::Roofline, "roofline (4 FLOP, packed)", false, nullptr, 0},
    {m::kFfmaPeak, "FP32 peak: FFMA per cycle (GPU)", "inst/cycle", C::Roofline, "roofline (% of FP32 peak)", false,
     nullptr, 0},
    {m::kDfmaPeak, "FP64 peak: DFMA per cycle (GPU)", "inst/cycle", C::Roofline, "roofline (% of FP64 peak)", false,
     nullptr, 0},
    {m::kHfmaPeak, "FP16 peak: HFMA2 per cycle (GPU)", "inst/cycle", C::Roofline, "bound: FP16 peak", false, nullptr,
     0},
    {m::kHgmmaFp16Peak, "FP16 tensor peak, wgmma dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false,
     nullptr, 90},
    {m::kHgmmaBf16Peak, "BF16 tensor peak, wgmma dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false,
     nullptr, 90},
    {m::kHgmmaTf32Peak, "TF32 tensor peak, wgmma dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false,
     nullptr, 90},
    {m::kHmmaFp16Peak, "FP16 tensor peak, mma dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false,
     nullptr, 80},
    {m::kHmmaBf16Peak, "BF16 tensor peak, mma dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false,
     nullptr, 80},
    {m::kHmmaTf32Peak, "TF32 tensor peak, mma dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false,
     nullptr, 80},
    {m::kTensorFp64Peak, "FP64 tensor peak (ops per cycle)", "", C::Roofline, "bound: tensor peak", false, nullptr, 80},
    {m::kTensorFp8Peak, "FP8 tensor peak, dense (ops per cycle)", "", C::Roofline, "bound: tensor peak", false, nullptr,
     90},
    {m::kL2Sectors, "L2 sectors (all requests)", "sector", C::Roofline, "roofline (L2 point)", false, nullptr, 0},
    {m::kL2XbarPeak, "L2 peak: lts2xbar cycles per cycle (x 32 B)", "", C::Roofline, "roofline (L2 ceiling)", false,
     nullptr, 0},
    {m::kL2Freq, "L2 frequency", "Hz", C::Roofline, "roofline (L2 ceiling)", false, nullptr, 0},
    {m::kL1WritebackPeak, "L1 peak: LSU writeback cycles per cycle (x 128 B)", "", C::Roofline, "roofline (L1 ceiling)",
     false, nullptr, 0},
    {m::kL1Freq, "L1 frequency", "Hz", C::Roofline, "roofline (L1 ceiling)", false, nullptr, 0},
    {m::kTensorOpsFp16, "Tensor ops, FP16 inputs", "", C::Roofline, "roofline (tensor ops)", false, nullptr, 0},
    {m::kTensorOpsBf16, "Tensor ops, BF16 inputs", "", C::Roofline, "roofline (tensor ops)", false, nullptr, 0},
    {m::kTensorOpsTf32, "Tensor ops, TF32 inputs", "", C::Roofline, "roofline (tensor ops)", false, nullptr, 0},
    {m::kTensorOpsFp64, "Tensor ops, FP64 inputs", "", C::Roofline, "roofline (tensor ops)", false, nullptr, 0},
    {m::kTensorOpsFp8, "Tensor ops, FP8 inputs (dense)", "", C::Roofline, "roofline (tensor ops)", false, nullptr, 90},
    {m::kTensorOpsFp8Sparse, "Tensor ops, FP8 inputs (sparse)", "", C::Roofline, "roofline (tensor ops)", false,
     nullptr, 90},
};

#undef KPROF_STALL

}  // namespace

/// The names of MetricCategory (core/enum_names.hpp).
constexpr auto kCategoryTitles = enum_names<MetricCategory>({{MetricCategory::SpeedOfLight, "Speed of Light"},
                                                             {MetricCategory::Memory, "Memory"},
                                                             {MetricCategory::Compute, "Compute"},
                                                             {MetricCategory::Occupancy, "Occupancy"},
                                                             {MetricCategory::Launch, "Launch"},
                                                             {MetricCategory::Scheduler, "Scheduler and warp stalls"},
                                                             {MetricCategory::Roofline, "Roofline point"}},
                                                            "Other");

std::string category_title(MetricCategory c) { return kCategoryTitles.name(c); }

const std::vector<MetricSpec>& metric_catalog() { return kCatalog; }

const MetricSpec* find_metric_or_fallback(const std::string& name) {
  for (const auto& s : kCatalog)
    if (name == s.name || (s.fallback && name == s.fallback)) return &s;
  return nullptr;
}

const MetricSpec* find_metric(const std::string& name) {
  for (const auto& s : kCatalog)
    if (name == s.name) return &s;
  return nullptr;
}

std::vector<std::string> ncu_metric_names(int cc) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& s : kCatalog) {
    if (cc > 0 && s.min_cc > cc) continue;
    if (seen.insert(s.name).second) out.emplace_back(s.name);
  }
  return out;
}

std::optional<double> catalog_value(const KernelMetrics& k, const std::string& name, std::string* used) {
  if (auto v = k.number(name)) {
    if (used) *used = name;
    return v;
  }
  const MetricSpec* spec = find_metric(name);
  if (spec && spec->fallback) {
    if (auto v = k.number(spec->fallback)) {
      if (used) *used = spec->fallback;
      return v;
    }
  }
  return std::nullopt;
}

std::vector<std::string> missing_required_metrics(const KernelMetrics& k) {
  std::vector<std::string> out;
  for (const auto& s : kCatalog)
    if (s.required && !catalog_value(k, s.name)) out.emplace_back(s.name);
  return out;
}

std::vector<std::string> missing_catalog_metrics(const KernelMetrics& k) {
  std::vector<std::string> out;
  for (const auto& s : kCatalog)
    if (!catalog_value(k, s.name)) out.emplace_back(s.name);
  return out;
}

const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> reasons = [] {
    std::vector<std::string> r;
    const std::string prefix = m::kStallPrefix;
    const std::string suffix = "_per_issue_active.ratio";
    for (const auto& s : kCatalog) {
      std::string n = s.name;
      if (n.rfind(prefix, 0) == 0 && n.size() > prefix.size() + suffix.size())
        r.push_back(n.substr(prefix.size(), n.size() - prefix.size() - suffix.size()));
    }
    return r;
  }();
  return reasons;
}

std::string stall_metric(const std::string& reason) { return m::kStallPrefix + reason + "_per_issue_active.ratio"; }

std::string thread_inst_rate_metric(const std::string& op) {
  return "smsp__sass_thread_inst_executed_op_" + op + "_pred_on.sum.per_cycle_elapsed";
}

const std::vector<std::string>& tensor_op_metrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> r;
    for (const auto& s : kCatalog)
      // The counters only (".sum"), not their ".sum.peak_sustained" peaks.
      if (std::string(s.name).rfind(m::kTensorOpsPrefix, 0) == 0 && std::string(s.name).size() > 4 &&
          std::string(s.name).compare(std::string(s.name).size() - 4, 4, ".sum") == 0)
        r.emplace_back(s.name);
    return r;
  }();
  return names;
}

namespace {

#define KPROF_LEAF(metric_base, unit) \
  SolLeaf { metric_base ".avg.pct_of_peak_sustained_elapsed", unit }

// ncu 2025.3.1's own lists on the H200 (the "breakdown:" metrics of the reports under
// tests/data/ncurep, identical in all six), each leaf with the unit it measures.
const std::vector<SolLeaf> kSmLeaves = {
    KPROF_LEAF("idc__request_cycles_active", "IDC (indexed constants)"),
    KPROF_LEAF("sm__inst_executed", "Issue slots"),
    KPROF_LEAF("sm__inst_executed_pipe_adu", "ADU pipe"),
    KPROF_LEAF("sm__inst_executed_pipe_cbu_pred_on_any", "CBU pipe"),
    KPROF_LEAF("sm__inst_executed_pipe_ipa", "IPA pipe"),
    KPROF_LEAF("sm__inst_executed_pipe_lsu", "LSU pipe"),
    KPROF_LEAF("sm__inst_executed_pipe_tex", "TEX pipe"),
    KPROF_LEAF("sm__inst_executed_pipe_uniform", "Uniform pipe"),
    KPROF_LEAF("sm__inst_executed_pipe_xu", "XU pipe"),
    KPROF_LEAF("sm__instruction_throughput_internal_activity", "SM internal activity"),
    KPROF_LEAF("sm__issue_active", "Issue slots"),
    KPROF_LEAF("sm__memory_throughput_internal_activity", "SM internal activity"),
    KPROF_LEAF("sm__mio2rf_writeback_active", "MIO"),
    KPROF_LEAF("sm__mio_inst_issued", "MIO"),
    KPROF_LEAF("sm__mio_pq_read_cycles_active", "MIO"),
    KPROF_LEAF("sm__mio_pq_write_cycles_active", "MIO"),
    KPROF_LEAF("sm__pipe_alu_cycles_active", "ALU pipe"),
    KPROF_LEAF("sm__pipe_fma_cycles_active", "FMA pipe"),
    KPROF_LEAF("sm__pipe_fmaheavy_cycles_active", "FMA heavy pipe"),
    KPROF_LEAF("sm__pipe_fp64_cycles_active", "FP64 pipe"),
    KPROF_LEAF("sm__pipe_shared_cycles_active", "Shared pipe (FP16 + tensor)"),
    KPROF_LEAF("sm__pipe_tensor_cycles_active", "Tensor pipe"),
    KPROF_LEAF("sm__pipe_tensor_op_dmma_cycles_active", "Tensor pipe"),
    KPROF_LEAF("sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active", "Tensor pipe"),
    KPROF_LEAF("sm__pipe_tma_cycles_active", "TMA pipe"),
};

const std::vector<SolLeaf> kMemoryLeaves = {
    KPROF_LEAF("dram__cycles_active", "DRAM"),
    KPROF_LEAF("fbpa__dram_sectors", "DRAM"),
    KPROF_LEAF("gpu__compute_memory_access_throughput_internal_activity", "Memory internal activity"),
    KPROF_LEAF("gpu__compute_memory_request_throughput_internal_activity", "Memory internal activity"),
    KPROF_LEAF("l1tex__data_bank_reads", "L1/TEX"),
    KPROF_LEAF("l1tex__data_bank_writes", "L1/TEX"),
    KPROF_LEAF("l1tex__data_pipe_lsu_wavefronts", "L1/TEX"),
    KPROF_LEAF("l1tex__data_pipe_tex_wavefronts", "L1/TEX"),
    KPROF_LEAF("l1tex__f_wavefronts", "L1/TEX"),
    KPROF_LEAF("l1tex__lsu_writeback_active", "L1/TEX"),
    KPROF_LEAF("l1tex__lsuin_requests", "L1/TEX"),
    KPROF_LEAF("l1tex__m_l1tex2xbar_req_cycles_active", "L1/TEX"),
    KPROF_LEAF("l1tex__m_xbar2l1tex_read_sectors", "L1/TEX"),
    KPROF_LEAF("l1tex__m_xbar2l1tex_read_sectors_mem_dshared", "L1/TEX"),
    KPROF_LEAF("l1tex__tex_writeback_active", "L1/TEX"),
    KPROF_LEAF("l1tex__texin_sm2tex_req_cycles_active", "L1/TEX"),
    KPROF_LEAF("l1tex__tmain_requests", "L1/TEX"),
    KPROF_LEAF("lts__d_atomic_input_cycles_active", "L2"),
    KPROF_LEAF("lts__d_decomp_input_sectors", "L2"),
    KPROF_LEAF("lts__d_sectors", "L2"),
    KPROF_LEAF("lts__d_sectors_fill_device", "L2"),
    KPROF_LEAF("lts__d_sectors_fill_sysmem", "L2"),
    KPROF_LEAF("lts__lts2xbar_cycles_active", "L2"),
    KPROF_LEAF("lts__t_sectors", "L2"),
    KPROF_LEAF("lts__t_tag_requests", "L2"),
    KPROF_LEAF("lts__xbar2lts_cycles_active", "L2"),
};

#undef KPROF_LEAF

}  // namespace

const std::vector<SolLeaf>& sm_sol_leaves() { return kSmLeaves; }

const std::vector<SolLeaf>& memory_sol_leaves() { return kMemoryLeaves; }

const std::vector<std::string>& sol_breakdown_requests() {
  static const std::vector<std::string> r = {m::kSmSolBreakdown, m::kMemSolBreakdown};
  return r;
}

std::string sol_leaf_unit(const std::string& leaf) {
  for (const auto* leaves : {&kSmLeaves, &kMemoryLeaves})
    for (const auto& l : *leaves)
      if (leaf == l.name) return l.unit;
  return "";
}

}  // namespace kprof
