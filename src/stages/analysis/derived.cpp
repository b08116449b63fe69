#include "stages/analysis/derived.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace m = metric;

SolReading read_sol(const KernelMetrics& k) {
  SolReading s;
  s.sm = catalog_value(k, m::kSmSol);
  s.mem = catalog_value(k, m::kMemSol);
  s.dram = catalog_value(k, m::kDramPct);
  s.l1 = catalog_value(k, m::kL1Pct, &s.l1_metric);
  s.l2 = catalog_value(k, m::kL2Pct);
  if (!s.mem && (s.dram || s.l1 || s.l2)) {
    double best = 0;
    for (const auto& v : {s.dram, s.l1, s.l2})
      if (v) best = std::max(best, *v);
    s.mem = best;
    s.mem_from_units = true;
  }
  return s;
}

std::optional<MemoryUnit> memory_unit(const SolReading& s) {
  std::vector<MemoryUnit> units;
  if (s.dram) units.push_back({"DRAM", m::kDramPct, *s.dram, false});
  if (s.l1) units.push_back({"L1", s.l1_metric.empty() ? m::kL1Pct : s.l1_metric, *s.l1, false});
  if (s.l2) units.push_back({"L2", m::kL2Pct, *s.l2, false});
  if (units.empty()) return std::nullopt;
  if (s.mem) {
    const MemoryUnit* closest = nullptr;
    for (const auto& u : units) {
      double d = std::fabs(u.pct - *s.mem);
      if (d <= threshold::kUnitMatchPts && (!closest || d < std::fabs(closest->pct - *s.mem))) closest = &u;
    }
    if (closest) {
      MemoryUnit u = *closest;
      u.matches_sol = true;
      return u;
    }
  }
  return *std::max_element(units.begin(), units.end(),
                           [](const MemoryUnit& a, const MemoryUnit& b) { return a.pct < b.pct; });
}

std::string OccupancyLimiter::text() const {
  std::string names;
  for (size_t i = 0; i < resources.size(); ++i) names += (i ? " and " : "") + resources[i];
  return fmt::format("{} ({} blocks per SM)", names, fmt_sig(blocks_per_sm, 4));
}

std::optional<OccupancyLimiter> occupancy_limiter(const KernelMetrics& k) {
  const std::pair<const char*, const char*> limits[] = {{m::kLimitRegisters, "registers"},
                                                        {m::kLimitShared, "shared memory"},
                                                        {m::kLimitWarps, "warps per SM (block size)"},
                                                        {m::kLimitBlocks, "blocks per SM"},
                                                        {m::kLimitBarriers, "barriers"}};
  OccupancyLimiter out;
  bool any = false;
  for (const auto& [metric_name, resource] : limits) {
    auto v = catalog_value(k, metric_name);
    if (!v) continue;
    if (!any || *v < out.blocks_per_sm) {
      out.blocks_per_sm = *v;
      out.resources = {resource};
      any = true;
    } else if (*v == out.blocks_per_sm) {
      out.resources.emplace_back(resource);
    }
  }
  // Without the register, shared-memory and warp limits the smallest one is not known.
  if (!any || !catalog_value(k, m::kLimitRegisters) || !catalog_value(k, m::kLimitShared) ||
      !catalog_value(k, m::kLimitWarps))
    return std::nullopt;
  return out;
}

std::optional<double> waves_per_sm(const KernelMetrics& k, std::string* how) {
  auto grid = catalog_value(k, m::kGridSize);
  auto sms = catalog_value(k, m::kSmCount);
  auto limiter = occupancy_limiter(k);
  if (grid && sms && *sms > 0 && limiter && limiter->blocks_per_sm > 0) {
    double w = *grid / (*sms * limiter->blocks_per_sm);
    if (how)
      *how = fmt::format("{} / ({} x {}) = grid / (SMs x blocks per SM)", m::kGridSize, m::kSmCount,
                         std::string("min(") + m::kLimitFamily + ")");
    return w;
  }
  auto w = catalog_value(k, m::kWaves);
  if (w && how) *how = m::kWaves;
  return w;
}

std::vector<StallShare> ranked_stalls(const KernelMetrics& k) {
  std::vector<StallShare> out;
  double sum = 0;
  for (const auto& reason : stall_reasons()) {
    auto v = catalog_value(k, stall_metric(reason));
    if (!v) continue;
    sum += *v;
    if (reason == "selected") continue;
    out.push_back({reason, stall_metric(reason), *v, 0});
  }
  auto total = catalog_value(k, m::kWarpLatency);
  double denom = total && *total > 0 ? *total : sum;
  for (auto& s : out) s.share_pct = denom > 0 ? 100.0 * s.cycles / denom : 0.0;
  std::stable_sort(out.begin(), out.end(),
                   [](const StallShare& a, const StallShare& b) { return a.cycles > b.cycles; });
  return out;
}

std::optional<StallShare> stall_share(const KernelMetrics& k, const std::string& reason) {
  for (const auto& s : ranked_stalls(k))
    if (s.reason == reason) return s;
  return std::nullopt;
}

std::vector<PipeUse> pipe_utilizations(const KernelMetrics& k) {
  const std::pair<const char*, const char*> pipes[] = {{"FMA", m::kPipeFma},   {"ALU", m::kPipeAlu},
                                                       {"FP64", m::kPipeFp64}, {"Tensor", m::kPipeTensor},
                                                       {"LSU", m::kPipeLsu},   {"XU", m::kPipeXu}};
  std::vector<PipeUse> out;
  for (const auto& [name, metric_name] : pipes)
    if (auto v = catalog_value(k, metric_name)) out.push_back({name, metric_name, *v});
  std::stable_sort(out.begin(), out.end(), [](const PipeUse& a, const PipeUse& b) { return a.pct > b.pct; });
  return out;
}

Coalescing coalescing(const KernelMetrics& k, bool loads) {
  Coalescing c;
  const char* ratio_name = loads ? m::kLdBytesPerSector : m::kStBytesPerSector;
  const char* pct_name = loads ? m::kLdEfficiencyPct : m::kStEfficiencyPct;
  auto sectors = catalog_value(k, loads ? m::kLdSectors : m::kStSectors);
  c.requests = catalog_value(k, loads ? m::kLdRequests : m::kStRequests);
  c.bytes_per_sector = catalog_value(k, ratio_name);
  if (c.bytes_per_sector) {
    c.efficiency_pct = 100.0 * *c.bytes_per_sector / threshold::kSectorBytes;
    c.efficiency_metric = ratio_name;
  } else if (auto pct = k.number(pct_name)) {
    c.efficiency_pct = *pct;
    c.bytes_per_sector = *pct / 100.0 * threshold::kSectorBytes;
    c.efficiency_metric = pct_name;
  }
  if (sectors && c.requests && *c.requests > 0) {
    c.sectors_per_request = *sectors / *c.requests;
    if (c.bytes_per_sector) {
      double used_bytes = *c.sectors_per_request * *c.bytes_per_sector;
      c.ideal_sectors_per_request = std::ceil(used_bytes / threshold::kSectorBytes - 1e-9);
    }
  }
  return c;
}

std::string AsyncCopies::text() const {
  std::string parts;
  if (ldgsts_inst > 0)
    parts += fmt::format("LDGSTS {} instructions, {} sectors", fmt_sig(ldgsts_inst, 3), fmt_sig(ldgsts_sectors, 3));
  if (tma_bytes > 0)
    parts += (parts.empty() ? "" : "; ") + fmt::format("TMA {} from global memory", fmt_bytes(tma_bytes));
  return "the kernel loads through asynchronous copies (" + parts + "), which the LDG ratios do not count";
}

std::optional<AsyncCopies> async_copies(const KernelMetrics& k) {
  AsyncCopies a;
  a.ldgsts_inst = catalog_value(k, m::kLdgstsInst).value_or(0);
  a.ldgsts_sectors =
      catalog_value(k, m::kLdgstsSectorsAccess).value_or(0) + catalog_value(k, m::kLdgstsSectorsBypass).value_or(0);
  a.tma_bytes = catalog_value(k, m::kTmaLdBytes).value_or(0);
  if (a.ldgsts_inst <= 0 && a.tma_bytes <= 0) return std::nullopt;
  return a;
}

std::optional<LoadReuse> load_reuse(const KernelMetrics& k, std::optional<double> footprint_bytes) {
  auto gld = catalog_value(k, m::kLdSectors);
  auto lld = catalog_value(k, m::kLocalLdSectors);
  if (!gld && !lld) return std::nullopt;
  LoadReuse r;
  // Bytes the threads use, not whole sectors: an uncoalesced load fetches 32-byte sectors for 4
  // bytes each, which is waste (the coalescing finding), not reuse of the data.
  double used_per_sector = catalog_value(k, m::kLdBytesPerSector).value_or(threshold::kSectorBytes);
  r.requested_bytes = gld.value_or(0) * used_per_sector + lld.value_or(0) * threshold::kSectorBytes;
  if (footprint_bytes && *footprint_bytes > 0) {
    r.footprint_bytes = *footprint_bytes;
    r.footprint_how = "the call's buffers";
  } else if (auto rd = catalog_value(k, m::kDramRead); rd && *rd > 0) {
    r.footprint_bytes = *rd;
    r.footprint_how = m::kDramRead;
  } else {
    return std::nullopt;
  }
  if (r.requested_bytes <= 0) return std::nullopt;
  r.factor = r.requested_bytes / r.footprint_bytes;
  return r;
}

Roofline roofline_point(const KernelMetrics& k) {
  Roofline r;
  auto cycles = catalog_value(k, m::kSmspCycles);
  // FLOP per smsp elapsed cycle, summed over the GPU, per precision.
  auto per_cycle = [&](std::initializer_list<std::pair<const char*, double>> ops) -> std::optional<double> {
    std::optional<double> sum;
    for (const auto& [op, weight] : ops)
      if (auto v = catalog_value(k, thread_inst_rate_metric(op))) sum = sum.value_or(0) + weight * *v;
    return sum;
  };
  auto fp32 = per_cycle({{"fadd", 1}, {"fmul", 1}, {"ffma", 2}});
  auto fp64 = per_cycle({{"dadd", 1}, {"dmul", 1}, {"dfma", 2}});
  auto fp16 = per_cycle({{"hadd", 2}, {"hmul", 2}, {"hfma", 4}});
  if (cycles) {
    if (fp32) r.fp32_flop = *fp32 * *cycles;
    if (fp64) r.fp64_flop = *fp64 * *cycles;
    if (fp16) r.fp16_flop = *fp16 * *cycles;
  }
  for (const auto& name : tensor_op_metrics())
    if (auto v = catalog_value(k, name)) r.tensor_ops = r.tensor_ops.value_or(0) + *v;
  for (const auto& part : {r.fp32_flop, r.fp64_flop, r.fp16_flop, r.tensor_ops})
    if (part) r.total_flop = r.total_flop.value_or(0) + *part;
  auto rd = catalog_value(k, m::kDramRead);
  auto wr = catalog_value(k, m::kDramWrite);
  if (rd && wr) r.dram_bytes = *rd + *wr;
  if (r.total_flop && r.dram_bytes && *r.dram_bytes > 0) r.intensity = *r.total_flop / *r.dram_bytes;
  auto ns = catalog_value(k, m::kDuration);
  if (ns && *ns > 0) {
    if (r.total_flop) r.flop_per_s = *r.total_flop / (*ns * 1e-9);
    if (r.dram_bytes) r.dram_bytes_per_s = *r.dram_bytes / (*ns * 1e-9);
  }
  auto ffma_peak = catalog_value(k, m::kFfmaPeak);
  if (fp32 && ffma_peak && *ffma_peak > 0) r.fp32_peak_pct = 100.0 * *fp32 / (2.0 * *ffma_peak);
  auto peak_per_cycle = catalog_value(k, m::kDramPeakPerCycle);
  auto dram_hz = catalog_value(k, m::kDramFreq);
  if (peak_per_cycle && dram_hz) r.peak_dram_bytes_per_s = *peak_per_cycle * *dram_hz;
  return r;
}

}  // namespace kprof
