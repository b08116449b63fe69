#include "stages/analysis/signals.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/finding_catalog.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

namespace m = metric;
namespace t = threshold;

/// A row with its description filled in (state NotCollected until evaluated).
SignalRow new_row(const std::string& id, const std::string& symptom, const std::string& metric,
                  const std::string& threshold, const std::string& ideal, const std::string& issue) {
  SignalRow row;
  row.id = id;
  row.symptom = symptom;
  row.metric = metric;
  row.threshold = threshold;
  row.ideal = ideal;
  row.likely_issue = issue;
  return row;
}

/// A row whose inputs are missing.
SignalRow not_collected(SignalRow row, std::vector<std::string> missing) {
  row.state = SignalState::NotCollected;
  row.value = "not collected";
  row.missing = std::move(missing);
  return row;
}

SignalRow coalescing_row(const KernelMetrics& k, bool loads) {
  const char* what = loads ? "load" : "store";
  SignalRow row;
  row.id = finding_key(loads ? FindingId::UncoalescedLoads : FindingId::UncoalescedStores);
  row.symptom = fmt::format("Global {} efficiency < {}% (sectors/request above the ideal)", what,
                            fmt_sig(t::kMinGlobalEfficiencyPct));
  row.metric = fmt::format("{} / 32; {} / {}", loads ? m::kLdBytesPerSector : m::kStBytesPerSector,
                           loads ? m::kLdSectors : m::kStSectors, loads ? m::kLdRequests : m::kStRequests);
  row.threshold = fmt::format(
      "efficiency < {}% (kernel-profile scripts: < 100%; kprof allows 5 points for "
      "partial sectors at array ends)",
      fmt_sig(t::kMinGlobalEfficiencyPct));
  row.ideal =
      "100%: all 32 bytes of each sector used; sectors/request ideal = bytes a warp "
      "request uses / 32 (4 for 4-byte loads, 16 for 16-byte loads), not 1";
  row.likely_issue = "Uncoalesced or misaligned memory access";
  Coalescing c = coalescing(k, loads);
  if (c.requests && *c.requests == 0) {
    row.state = SignalState::NotApplicable;
    row.value = fmt::format("no global {}s", what);
    return row;
  }
  if (!c.efficiency_pct) return not_collected(row, {loads ? m::kLdBytesPerSector : m::kStBytesPerSector});
  row.number = *c.efficiency_pct;
  row.unit = "%";
  row.value = fmt::format("{} ({} of 32 bytes per sector used)", format_value(*c.efficiency_pct, "%"),
                          fmt_sig(*c.bytes_per_sector, 3));
  if (c.sectors_per_request) {
    row.value += fmt::format("; {} sectors/request", fmt_sig(*c.sectors_per_request, 3));
    if (c.ideal_sectors_per_request)
      row.value +=
          fmt::format(" (ideal {} for the {} bytes each request uses)", fmt_sig(*c.ideal_sectors_per_request, 3),
                      fmt_sig(*c.sectors_per_request * *c.bytes_per_sector, 4));
  }
  row.state = *c.efficiency_pct < t::kMinGlobalEfficiencyPct ? SignalState::Fires : SignalState::Clear;
  return row;
}

/// The seed's "L1/L2 hit rate too low", fired only where data is reused (load_reuse >=
/// kMinReuseForHitRate): a kernel that requests each byte once cannot hit, whatever its rate.
SignalRow hit_rate_row(const KernelMetrics& k, bool l1, std::optional<double> footprint) {
  double limit = l1 ? t::kLowL1HitPct : t::kLowL2HitPct;
  SignalRow row = new_row(
      l1 ? "l1-hit" : "l2-hit", fmt::format("{} hit rate too low (on reused data)", l1 ? "L1/TEX" : "L2"),
      fmt::format("{}; reuse = ({} x {} + {} x 32) / footprint", l1 ? m::kL1Hit : m::kL2Hit, m::kLdSectors,
                  m::kLdBytesPerSector, m::kLocalLdSectors),
      fmt::format(
          "< {}% (the kernel-profile scripts give no number; kprof's choice) and reuse >= {} (the loads request the "
          "footprint at least {} times)",
          fmt_sig(limit), fmt_sig(t::kMinReuseForHitRate), fmt_sig(t::kMinReuseForHitRate)),
      "as high as the data's reuse allows; a kernel that reads each byte once (a stream) cannot hit, so a low "
      "rate matters only when data is reused",
      "Poor locality or working set too large");
  auto v = catalog_value(k, l1 ? m::kL1Hit : m::kL2Hit);
  if (!v) return not_collected(row, {l1 ? m::kL1Hit : m::kL2Hit});
  row.value = format_value(*v, "%");
  row.number = *v;
  row.unit = "%";
  auto reuse = load_reuse(k, footprint);
  auto gld = catalog_value(k, m::kLdSectors), lld = catalog_value(k, m::kLocalLdSectors);
  if (gld && lld && *gld + *lld == 0) {
    row.state = SignalState::NotApplicable;  // TMA or shared-memory-only kernels: the rate is empty
    row.value += "; no global or local loads through L1";
    return row;
  }
  if (!reuse) {
    row.state = *v < limit ? SignalState::NotCollected : SignalState::Clear;
    if (row.state == SignalState::NotCollected) {
      row.value += "; reuse unknown";
      row.missing = {m::kLdSectors, m::kDramRead};
    }
    return row;
  }
  row.value += fmt::format("; reuse {} ({} requested by loads / {} footprint from {})", fmt_sig(reuse->factor, 3),
                           format_value(reuse->requested_bytes, "byte"), format_value(reuse->footprint_bytes, "byte"),
                           reuse->footprint_how);
  bool reused = reuse->factor >= t::kMinReuseForHitRate;
  if (*v < limit && !reused) row.value += ": a stream, nothing to hit";
  row.state = *v < limit && reused ? SignalState::Fires : SignalState::Clear;
  return row;
}

/// The seed's "Shared memory efficiency low or bank conflicts high" row. Efficiency here is the
/// share of shared-memory wavefronts that were not extra wavefronts caused by a bank conflict
/// ((wavefronts - conflicts) / wavefronts, from the same two ncu metrics), so both halves of the
/// seed's row are one test: conflicts > kHighBankConflictPct % <=> efficiency < 100 - that.
SignalRow bank_conflict_row(const KernelMetrics& k) {
  SignalRow row =
      new_row(finding_key(FindingId::BankConflicts), "Shared memory efficiency low or bank conflicts high",
              fmt::format("{} / {}", m::kBankConflicts, m::kSharedWavefronts),
              fmt::format("conflicts > {}% of shared wavefronts, i.e. efficiency < {}% (kprof choice)",
                          fmt_sig(t::kHighBankConflictPct), fmt_sig(100.0 - t::kHighBankConflictPct)),
              "efficiency 100%, 0 conflicts: one wavefront per shared-memory request", "Shared memory bank conflicts");
  auto conflicts = catalog_value(k, m::kBankConflicts);
  auto wavefronts = catalog_value(k, m::kSharedWavefronts);
  std::vector<std::string> missing;
  if (!conflicts) missing.emplace_back(m::kBankConflicts);
  if (!wavefronts) missing.emplace_back(m::kSharedWavefronts);
  if (!missing.empty()) return not_collected(row, missing);
  if (*wavefronts <= 0) {
    row.state = SignalState::NotApplicable;
    row.value = "no shared-memory wavefronts";
    return row;
  }
  double pct = 100.0 * *conflicts / *wavefronts;
  row.number = pct;
  row.unit = "% of shared wavefronts (conflicts)";
  row.value = fmt::format("efficiency {}, conflicts {} ({} conflicts / {} wavefronts)",
                          format_value(std::max(0.0, 100.0 - pct), "%"), format_value(pct, "%"),
                          format_value(*conflicts, ""), format_value(*wavefronts, ""));
  row.state = pct > t::kHighBankConflictPct ? SignalState::Fires : SignalState::Clear;
  return row;
}

SignalRow simple_row(const KernelMetrics& k, const std::string& id, const char* symptom, const char* metric_name,
                     const std::string& unit, bool fires_below, double limit, const std::string& threshold_text,
                     const char* ideal, const char* issue) {
  SignalRow row = new_row(id, symptom, metric_name, threshold_text, ideal, issue);
  auto v = catalog_value(k, metric_name);
  if (!v) return not_collected(row, {metric_name});
  row.value = format_value(*v, unit);
  row.number = *v;
  row.unit = unit;
  bool fires = fires_below ? *v < limit : *v > limit;
  row.state = fires ? SignalState::Fires : SignalState::Clear;
  return row;
}

SignalRow spill_row(const KernelMetrics& k) {
  SignalRow row =
      new_row("spill", "Register spill > 0 (local-memory traffic)",
              fmt::format("{} + {}", m::kLocalLdSectors, m::kLocalStSectors), "> 0 sectors (kernel-profile scripts)",
              "0: no local memory (spills or local arrays)", "Register pressure causing local memory traffic");
  auto ld = catalog_value(k, m::kLocalLdSectors);
  auto st = catalog_value(k, m::kLocalStSectors);
  std::vector<std::string> missing;
  if (!ld) missing.emplace_back(m::kLocalLdSectors);
  if (!st) missing.emplace_back(m::kLocalStSectors);
  if (!missing.empty()) return not_collected(row, missing);
  double sectors = *ld + *st;
  row.number = sectors;
  row.unit = "sectors";
  row.value =
      fmt::format("{} sectors ({})", format_value(sectors, ""), format_value(sectors * t::kSectorBytes, "byte"));
  if (auto regs = catalog_value(k, m::kRegsPerThread))
    row.value += fmt::format("; {} registers/thread", fmt_sig(*regs, 4));
  row.state = sectors > t::kSpillSectors ? SignalState::Fires : SignalState::Clear;
  return row;
}

SignalRow stall_row(const KernelMetrics& k, FindingId id, const char* label, const char* issue) {
  const std::string reason = finding_row(id).stall_reason;
  SignalRow row = new_row(
      finding_key(id), fmt::format("Stall {} high", label),
      fmt::format("{} / {}", stall_metric(reason), m::kWarpLatency),
      fmt::format(">= {}% of warp cycles per issued instruction (kprof choice)", fmt_sig(t::kHighStallSharePct)),
      "a small share; stalls are spread and hidden by other warps", issue);
  auto s = stall_share(k, reason);
  if (!s) return not_collected(row, {stall_metric(reason)});
  row.number = s->share_pct;
  row.unit = "% of warp cycles per issued instruction";
  row.value = fmt::format("{} cycles per issued instruction = {} of all", fmt_sig(s->cycles, 4),
                          format_value(s->share_pct, "%"));
  row.state = s->share_pct >= t::kHighStallSharePct ? SignalState::Fires : SignalState::Clear;
  return row;
}

SignalRow divergence_row(const KernelMetrics& k) {
  SignalRow row = new_row(
      "divergent-branches", "Divergent branches high", fmt::format("{} / {}", m::kDivergentTargets, m::kBranchInst),
      fmt::format("> {}% of executed branch instructions (kprof choice)", fmt_sig(t::kHighDivergentBranchPct)),
      "0: all threads of a warp take the same branch target", "Warp divergence");
  auto div = catalog_value(k, m::kDivergentTargets);
  auto branches = catalog_value(k, m::kBranchInst);
  std::vector<std::string> missing;
  if (!div) missing.emplace_back(m::kDivergentTargets);
  if (!branches) missing.emplace_back(m::kBranchInst);
  if (!missing.empty()) return not_collected(row, missing);
  if (*branches <= 0) {
    row.state = SignalState::NotApplicable;
    row.value = "no branch instructions";
    return row;
  }
  double pct = 100.0 * *div / *branches;
  row.number = pct;
  row.unit = "% of branch instructions";
  row.value = fmt::format("{} divergent targets = {} of {} branches", format_value(*div, ""), format_value(pct, "%"),
                          format_value(*branches, ""));
  row.state = pct > t::kHighDivergentBranchPct ? SignalState::Fires : SignalState::Clear;
  return row;
}

/// The seed's "Branch efficiency < 100%". ncu's average over divergent-capable branches reads 0%
/// when no branch target was divergent (smsp__sass_branch_targets_threads_divergent.sum = 0):
/// the metric is empty there, not bad, so the row is n/a there instead of firing.
SignalRow branch_efficiency_row(const KernelMetrics& k) {
  SignalRow row = simple_row(
      k, "branch-efficiency", "Branch efficiency < 100%", m::kBranchUniformPct, "%", true, t::kMinBranchEfficiencyPct,
      fmt::format("< {}% (kernel-profile scripts: < 100%; kprof allows 5 points for a bounds check in the last warp)",
                  fmt_sig(t::kMinBranchEfficiencyPct)),
      "100%: every branch is uniform across its warp", "Warp divergence");
  auto div = catalog_value(k, m::kDivergentTargets);
  if (row.state == SignalState::Fires && div && *div == 0) {
    row.state = SignalState::NotApplicable;
    row.value += " with 0 divergent branch targets: ncu's average has nothing to average (empty, not low)";
  }
  return row;
}

/// Not in the seed's table: warps whose instructions run with few active
/// threads, from divergence or predication, even where the branch targets look uniform. ncu's
/// ThreadDivergence rule: the smaller of the two ratios below 24 of 32.
SignalRow thread_divergence_row(const KernelMetrics& k) {
  SignalRow row = new_row("thread-divergence", "Threads per instruction low (divergence or predication)",
                          fmt::format("min({}, {})", m::kThreadsPerInst, m::kThreadsPerInstPredOn),
                          fmt::format("< {} of 32 (ncu's ThreadDivergence rule)", fmt_sig(t::kMinThreadsPerInst)),
                          "32: every thread of a warp executes every instruction", "Warp divergence or predication");
  auto all = catalog_value(k, m::kThreadsPerInst);
  auto npo = catalog_value(k, m::kThreadsPerInstPredOn);
  if (!all && !npo) return not_collected(row, {m::kThreadsPerInst, m::kThreadsPerInstPredOn});
  double used = std::min(all.value_or(32), npo.value_or(32));
  row.number = used;
  row.unit = "threads per instruction (of 32)";
  row.value = fmt::format("{} of 32 threads active per executed instruction ({} not predicated off)",
                          all ? fmt_sig(*all, 3) : "n/a", npo ? fmt_sig(*npo, 3) : "n/a");
  row.state = used < t::kMinThreadsPerInst ? SignalState::Fires : SignalState::Clear;
  return row;
}

}  // namespace

std::vector<SignalRow> evaluate_signals(const KernelMetrics& k, std::optional<double> footprint) {
  std::vector<SignalRow> rows;
  rows.push_back(coalescing_row(k, true));
  rows.push_back(coalescing_row(k, false));
  rows.push_back(hit_rate_row(k, true, footprint));
  rows.push_back(hit_rate_row(k, false, footprint));
  rows.push_back(bank_conflict_row(k));
  rows.push_back(simple_row(k, finding_key(FindingId::IssueSlots), "Issue slot utilization < 50%", m::kIssueActive, "%",
                            true, t::kLowIssueSlotPct,
                            fmt::format("< {}% (kernel-profile scripts)", fmt_sig(t::kLowIssueSlotPct)),
                            "100%: every scheduler issues one instruction per cycle",
                            "Scheduler/compute underutilization (expected when the kernel waits on memory)"));
  rows.push_back(simple_row(
      k, "eligible-warps", "Eligible warps per cycle low", m::kEligibleWarps, "warp", true, t::kLowEligibleWarps,
      fmt::format("< {} per scheduler (kprof choice)", fmt_sig(t::kLowEligibleWarps)),
      ">= 1 per scheduler, so an instruction can issue every cycle", "Not enough schedulable work, ILP, or occupancy"));
  rows.push_back(spill_row(k));
  rows.push_back(stall_row(k, FindingId::StallLongScoreboard, "Long Scoreboard", "Global memory latency"));
  rows.push_back(stall_row(k, FindingId::StallBarrier, "Barrier", "Synchronization overhead"));
  rows.push_back(branch_efficiency_row(k));
  rows.push_back(divergence_row(k));
  rows.push_back(thread_divergence_row(k));
  return rows;
}

}  // namespace kprof
