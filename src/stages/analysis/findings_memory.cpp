// Memory-side findings: each removes a share of one memory unit's work (L1/TEX, LSU/MIO issue, L2,
// DRAM), and its gain is that share times the unit's busy time, capped by the busiest unit the fix
// leaves as it is (limiter.hpp). docs/CLASSIFICATION.md "Findings from the limiter" lists them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/findings_detail.hpp"
#include "core/text.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof::detail {

namespace {

namespace m = metric;
namespace t = threshold;

std::string pct(double v) { return format_value(v, "%"); }
std::string num(double v) { return fmt_sig(v, 3); }

const std::set<std::string> kMemoryPath = {"L1/TEX", "L2", "DRAM"};

/// LSU instructions of global and shared loads and stores (warp level), when collected.
std::optional<double> lsu_instructions(const KernelMetrics& k) {
  std::optional<double> sum;
  for (const char* n : {m::kGlobalLdInst, m::kGlobalStInst, m::kSharedLdInst, m::kSharedStInst})
    if (auto v = catalog_value(k, n)) sum = sum.value_or(0) + *v;
  if (sum && *sum <= 0) return std::nullopt;
  return sum;
}

}  // namespace

Finding make_finding(FindingId id, const char* step) {
  const FindingRow& row = finding_row(id);
  Finding f;
  f.id = row.key;
  f.title = row.title;
  f.section = row.sections;
  f.next_step = step;
  f.scope = "global";
  return f;
}

void set_unit_gain(Finding& f, const UnitGain& g, const std::string& what) {
  f.gain_pct = g.gain_pct;
  f.unit = g.unit;
  f.unit_pct = g.unit_pct;
  f.share_pct = g.share_pct;
  f.formula = what + ": " + g.text;
  f.capped_by = g.capped ? g.capped->name : "";
}

std::optional<Finding> uncoalesced(const KernelMetrics& k, bool loads) {
  Coalescing c = coalescing(k, loads);
  if (!c.efficiency_pct) return std::nullopt;
  Finding f = make_finding(loads ? FindingId::UncoalescedLoads : FindingId::UncoalescedStores,
                           "make consecutive threads touch consecutive addresses (threadIdx.x on the fastest-varying "
                           "index), or stage the tile through shared memory and read it there in any order");
  // The ratios below are LDG/STG bytes per sector and sectors per request: not measured when one
  // of them is 0 (a kernel that loads through LDGSTS or TMA issues no LDG; findings.hpp's rule).
  f.ratio_inputs = {c.efficiency_metric, loads ? m::kLdRequests : m::kStRequests,
                    loads ? m::kLdSectors : m::kStSectors};
  double excess = 1.0 - *c.efficiency_pct / 100.0;
  // At L1/TEX: the sectors above the ideal per request, as a share of all L1/TEX work.
  std::optional<UnitGain> at_l1;
  std::string l1_what;
  auto work = l1_work(k);
  auto sectors = catalog_value(k, loads ? m::kLdSectors : m::kStSectors);
  if (work && sectors && c.sectors_per_request && c.ideal_sectors_per_request && *c.sectors_per_request > 0) {
    double extra = *sectors * std::max(0.0, 1.0 - *c.ideal_sectors_per_request / *c.sectors_per_request);
    at_l1 = gain_at_unit(k, "L1/TEX", extra / work->total(), kMemoryPath);
    l1_what = fmt::format("{} sectors per request where {} would do ({} B used per sector)",
                          num(*c.sectors_per_request), num(*c.ideal_sectors_per_request), num(*c.bytes_per_sector));
  }
  // At L2: ncu's form, the excess sectors that miss L1 (loads) as a share of L2's traffic.
  double miss = 1.0;
  std::string miss_text;
  if (auto hit = catalog_value(k, m::kL1Hit); hit && loads) {
    miss = 1.0 - *hit / 100.0;
    miss_text = fmt::format(" x (1 - L1 hit {})", pct(*hit));
  }
  auto at_l2 = gain_at_unit(k, "L2", excess * miss, kMemoryPath);
  std::string l2_what = fmt::format("(1 - {}/32 B used per sector){}", num(*c.bytes_per_sector), miss_text);
  auto best = best_gain({at_l1, at_l2});
  if (!best) return std::nullopt;
  set_unit_gain(f, *best, best->unit == "L2" ? l2_what : l1_what);
  f.anchor = "ncu UncoalescedGlobalAccess / MemoryCacheAccessPattern (excess sectors weighed by the unit's activity)";
  f.differ_why =
      "ncu weighs the excess sectors by one unit's throughput; kprof takes the busier of L1/TEX and L2 "
      "and caps the gain at the busiest unit the fix leaves as it is";
  return f;
}

std::optional<Finding> bank_conflicts(const KernelMetrics& k) {
  auto conflicts = catalog_value(k, m::kBankConflicts);
  auto work = l1_work(k);
  if (!conflicts || !work || work->shared_wavefronts <= 0) return std::nullopt;
  Finding f = make_finding(FindingId::BankConflicts,
                           "pad the shared array (e.g. [32][33] instead of [32][32]) or swizzle the index so the 32 "
                           "threads of a warp hit 32 different banks");
  auto g = gain_at_unit(k, "L1/TEX", *conflicts / work->total(), {"L1/TEX", "LSU/MIO issue"});
  if (!g) return std::nullopt;
  set_unit_gain(f, *g,
                fmt::format("{} conflict wavefronts of {} shared ({} of L1/TEX's work)", num(*conflicts),
                            num(work->shared_wavefronts), pct(100 * *conflicts / work->total())));
  f.anchor = "ncu SharedMemoryConflicts (kprof: loads and stores together)";
  f.differ_why =
      "ncu counts loads and stores apart and weighs them by L1 throughput; kprof counts both against all "
      "of L1/TEX's work";
  return f;
}

std::optional<Finding> local_memory(const KernelMetrics& k) {
  auto work = l1_work(k);
  if (!work || work->local_sectors <= 0) return std::nullopt;
  Finding f = make_finding(FindingId::LocalMemory,
                           "keep per-thread arrays in registers (index them with compile-time constants: unroll the "
                           "loop) or lower register pressure (__launch_bounds__, fewer live values); nvcc -Xptxas -v "
                           "prints the spill bytes");
  double share = work->local_sectors / work->total();
  auto at_l1 = gain_at_unit(k, "L1/TEX", share, kMemoryPath);
  double global = work->global_ld_sectors + work->global_st_sectors;
  auto at_l2 = gain_at_unit(k, "L2", work->local_sectors / (work->local_sectors + global), kMemoryPath);
  auto best = best_gain({at_l1, at_l2});
  if (!best) return std::nullopt;
  set_unit_gain(f, *best, fmt::format("local sectors {} of L1/TEX's work", pct(100 * share)));
  f.anchor = "kprof (ncu's MemoryCacheAccessPattern estimates only the access-pattern waste of local accesses)";
  f.differ_why = "ncu estimates only the access-pattern waste of local accesses; kprof all local traffic";
  return f;
}

std::optional<Finding> global_reloads(const KernelMetrics& k, std::optional<double> footprint) {
  auto hit = catalog_value(k, m::kL1Hit);
  auto reuse = load_reuse(k, footprint);
  auto work = l1_work(k);
  auto requests = catalog_value(k, m::kLdRequests);
  if (!hit || !reuse || !work || !requests || *hit < t::kL1ReloadHitPct || reuse->factor < t::kMinReuseForHitRate)
    return std::nullopt;
  Finding f = make_finding(FindingId::GlobalReloads,
                           "stage the reused tiles in shared memory (each block loads a tile once, its threads read "
                           "it there): the loads that hit L1 become one shared-memory wavefront each");
  // A tile in shared memory replaces each global load request's sectors by one shared wavefront.
  // Only the sectors a coalesced request needs count: the excess is the uncoalesced finding's.
  Coalescing c = coalescing(k, true);
  double needed = work->global_ld_sectors;
  if (c.sectors_per_request && c.ideal_sectors_per_request && *c.sectors_per_request > 0)
    needed *= std::min(1.0, *c.ideal_sectors_per_request / *c.sectors_per_request);
  double removed = std::max(0.0, needed - *requests);
  auto g = gain_at_unit(k, "L1/TEX", removed / work->total(), kMemoryPath);
  if (!g) return std::nullopt;
  std::string per_ffma;
  if (auto ld = catalog_value(k, m::kGlobalLdInst); ld && warp_ffma_count(k))
    per_ffma = fmt::format(", {} global loads per FFMA", num(*ld / *warp_ffma_count(k)));
  set_unit_gain(
      f, *g,
      fmt::format("reuse {} (loads request {} the footprint), L1 hit {}{}; {} needed sectors per request "
                  "become one shared wavefront",
                  num(reuse->factor), num(reuse->factor) + "x", pct(*hit), per_ffma, num(needed / *requests)));
  f.anchor = "kprof (ncu has no rule for reloads that hit L1)";
  return f;
}

std::optional<Finding> shared_reloads(const KernelMetrics& k) {
  auto wf = catalog_value(k, m::kSharedLdWavefronts);
  auto ffma = warp_ffma_count(k);
  auto work = l1_work(k);
  if (!wf || !ffma || !work || *wf <= 0) return std::nullopt;
  // Conflict replays are the bank-conflict finding's waste, not reloads: count clean wavefronts.
  double clean = std::max(0.0, *wf - catalog_value(k, m::kBankConflictsLd).value_or(0));
  double per_ffma = clean / *ffma;
  if (per_ffma < t::kSharedWavefrontsPerFfma) return std::nullopt;
  Finding f = make_finding(FindingId::SharedReloads,
                           "compute several outputs per thread (register blocking: a TM x TN tile per thread keeps a "
                           "column of A and a row of B in registers, so each shared load feeds TM or TN FFMAs)");
  double removed = 1.0 - t::kBlockedWavefrontsPerFfma / per_ffma;
  const std::set<std::string> relieved = {"L1/TEX", "LSU/MIO issue", "Issue slots"};
  auto at_l1 = gain_at_unit(k, "L1/TEX", removed * clean / work->total(), relieved);
  std::optional<UnitGain> at_lsu;
  auto sld = catalog_value(k, m::kSharedLdInst);
  if (auto all = lsu_instructions(k); all && sld)
    at_lsu = gain_at_unit(k, "LSU/MIO issue", removed * *sld / *all, relieved);
  auto best = best_gain({at_l1, at_lsu});
  if (!best) return std::nullopt;
  set_unit_gain(
      f, *best,
      fmt::format("{} conflict-free shared-load wavefronts per warp FFMA (the SM balances at {}: 1 wavefront vs 4 FFMA "
                  "per cycle); register blocking to {} removes {} of them",
                  num(per_ffma), num(t::kSharedWavefrontsPerFfma), num(t::kBlockedWavefrontsPerFfma),
                  pct(100 * removed)));
  f.anchor = "kprof (ncu's MIO throttle and shared-memory tables show the same pressure, without an estimate)";
  return f;
}

std::optional<Finding> vector_loads(const KernelMetrics& k) {
  auto all = lsu_instructions(k);
  if (!all) return std::nullopt;
  // Bytes per thread of one load instruction: global = bytes used per request / 32 threads; shared
  // = 128 B per conflict-free wavefront / 32 threads (a broadcast reads as narrow).
  double narrow_removed = 0;
  std::string parts;
  Coalescing c = coalescing(k, true);
  auto gld = catalog_value(k, m::kGlobalLdInst);
  if (gld && *gld > 0 && c.sectors_per_request && c.bytes_per_sector && c.efficiency_pct &&
      *c.efficiency_pct >= t::kMinGlobalEfficiencyPct) {
    double width = std::min(t::kVectorLoadBytes, *c.sectors_per_request * *c.bytes_per_sector / 32.0);
    narrow_removed += *gld * (1.0 - width / t::kVectorLoadBytes);
    parts += fmt::format("global loads {} B per thread", num(width));
  }
  auto sld = catalog_value(k, m::kSharedLdInst);
  auto swf = catalog_value(k, m::kSharedLdWavefronts);
  auto conflicts = catalog_value(k, m::kBankConflictsLd).value_or(catalog_value(k, m::kBankConflicts).value_or(0));
  if (sld && swf && *sld > 0) {
    double clean = std::max(*sld, *swf - conflicts);  // wavefronts without conflict replays
    double width = std::min(t::kVectorLoadBytes, clean / *sld * 4.0);
    narrow_removed += *sld * (1.0 - width / t::kVectorLoadBytes);
    parts += fmt::format("{}shared loads {} B per thread", parts.empty() ? "" : ", ", num(width));
  }
  if (narrow_removed <= 0) return std::nullopt;
  Finding f = make_finding(FindingId::VectorLoads,
                           "load 128 bits per thread: float4 / reinterpret_cast<const float4*> on 16-byte aligned "
                           "data from global memory, and a shared-memory layout (e.g. the A tile transposed) that the "
                           "inner loop reads as float4");
  if (!parts.empty() && parts.rfind("global", 0) == 0) f.ratio_inputs = {m::kLdBytesPerSector, m::kLdRequests};
  double share = narrow_removed / *all;
  auto at_lsu = gain_at_unit(k, "LSU/MIO issue", share, {"LSU/MIO issue", "Issue slots", "L1/TEX"});
  std::optional<UnitGain> at_issue;
  if (auto inst = catalog_value(k, m::kInstExecuted); inst && *inst > 0)
    at_issue = gain_at_unit(k, "Issue slots", narrow_removed / *inst, {"LSU/MIO issue", "Issue slots"});
  auto best = best_gain({at_lsu, at_issue});
  if (!best) return std::nullopt;
  set_unit_gain(f, *best, fmt::format("{}: 128-bit loads remove {} of the LSU instructions", parts, pct(100 * share)));
  f.anchor = "kprof (ncu's Instruction Statistics show the LDG/LDS counts, without an estimate)";
  return f;
}

std::optional<Finding> hit_rate(const KernelMetrics& k, bool l1, std::optional<double> footprint) {
  auto hit = catalog_value(k, l1 ? m::kL1Hit : m::kL2Hit);
  auto reuse = load_reuse(k, footprint);
  if (!hit || !reuse || reuse->factor <= 1) return std::nullopt;
  Finding f = l1 ? make_finding(FindingId::L1HitRate,
                                "tile the reused data through shared memory (or registers) so each block reads it once")
                 : make_finding(FindingId::L2HitRate,
                                "improve locality: work on tiles that fit in L2 and order the blocks so neighbours "
                                "share them (block swizzling)");
  double share = (1.0 - 1.0 / reuse->factor) * (1.0 - *hit / 100.0);
  auto g = gain_at_unit(k, l1 ? "L2" : "DRAM", share, l1 ? std::set<std::string>{"L2", "DRAM"} : kMemoryPath);
  if (!g) return std::nullopt;
  set_unit_gain(f, *g,
                fmt::format("(1 - 1/reuse {}) x (1 - {} hit {}) of {}'s traffic", num(reuse->factor), l1 ? "L1" : "L2",
                            pct(*hit), l1 ? "L2" : "DRAM"));
  f.anchor = "kprof (the traffic the next level would not carry if the reuse hit)";
  return f;
}

}  // namespace kprof::detail
