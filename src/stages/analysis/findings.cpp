#include "stages/analysis/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

namespace m = metric;
namespace t = threshold;

std::string pct(double v) { return format_value(v, "%"); }

/// ncu's IssueSlotUtilization estimate: min(1 - issue active, 1 - the busiest SOL), as a fraction.
std::optional<double> issue_headroom(const KernelMetrics& k, std::string* text) {
  auto issue = catalog_value(k, m::kIssueActive);
  SolReading s = read_sol(k);
  if (!issue) return std::nullopt;
  double a = 1.0 - *issue / 100.0;
  double top = std::max(s.sm.value_or(0), s.mem.value_or(0));
  double b = 1.0 - top / 100.0;
  if (text)
    *text = fmt::format("min(1 - issue active {}, 1 - busiest SOL {}) = {}", pct(*issue), pct(top),
                        pct(100 * std::min(a, b)));
  return std::max(0.0, std::min(a, b));
}

Finding base(const char* id, const char* title, const char* section, const char* step) {
  Finding f;
  f.id = id;
  f.title = title;
  f.section = section;
  f.next_step = step;
  f.scope = "global";
  return f;
}

std::optional<Finding> uncoalesced(const KernelMetrics& k, bool loads) {
  Coalescing c = coalescing(k, loads);
  auto l2 = catalog_value(k, m::kL2Pct);
  if (!c.efficiency_pct || !l2) return std::nullopt;
  Finding f = base(loads ? "uncoalesced-loads" : "uncoalesced-stores",
                   loads ? "Uncoalesced global loads" : "Uncoalesced global stores",
                   "Memory Workload Analysis Tables; Source Counters (the lines with excessive sectors)",
                   "make consecutive threads touch consecutive addresses (threadIdx.x on the fastest-varying "
                   "index), or stage the tile through shared memory and read it there in any order");
  double excess = 1.0 - *c.efficiency_pct / 100.0;
  double miss = 1.0;
  std::string miss_text;
  if (loads) {
    if (auto hit = catalog_value(k, m::kL1Hit)) {
      miss = 1.0 - *hit / 100.0;
      miss_text = fmt::format(" x (1 - L1 hit {})", pct(*hit));
    }
  }
  f.gain_pct = 100.0 * excess * miss * *l2 / 100.0;
  f.formula = fmt::format("(1 - {}/32 B used per sector){} x L2 throughput {} = {}", fmt_sig(*c.bytes_per_sector, 3),
                          miss_text, pct(*l2), pct(f.gain_pct));
  f.anchor = "ncu MemoryCacheAccessPattern at L2 (UncoalescedGlobalAccess weighs the excess sectors by L2 activity)";
  return f;
}

std::optional<Finding> bank_conflicts(const KernelMetrics& k) {
  auto conflicts = catalog_value(k, m::kBankConflicts);
  auto wavefronts = catalog_value(k, m::kSharedWavefronts);
  std::string l1_name = m::kL1PctActive;
  auto l1 = catalog_value(k, m::kL1PctActive);
  if (!l1) {
    l1 = catalog_value(k, m::kL1Pct, &l1_name);
  }
  if (!conflicts || !wavefronts || *wavefronts <= 0 || !l1) return std::nullopt;
  Finding f = base("bank-conflicts", "Shared-memory bank conflicts", "Memory Workload Analysis Tables; Source Counters",
                   "pad the shared array (e.g. [32][33] instead of [32][32]) or swizzle the index so the 32 "
                   "threads of a warp hit 32 different banks");
  double share = *conflicts / *wavefronts;
  f.gain_pct = 100.0 * share * *l1 / 100.0;
  f.formula = fmt::format("conflicts {} of shared wavefronts x L1 throughput {} ({}) = {}", pct(100 * share), pct(*l1),
                          l1_name == m::kL1PctActive ? "active cycles" : "elapsed", pct(f.gain_pct));
  f.anchor = "ncu SharedMemoryConflicts (kprof: loads and stores together)";
  return f;
}

std::optional<Finding> local_memory(const KernelMetrics& k) {
  auto lld = catalog_value(k, m::kLocalLdSectors), lst = catalog_value(k, m::kLocalStSectors);
  auto gld = catalog_value(k, m::kLdSectors), gst = catalog_value(k, m::kStSectors);
  auto mem = read_sol(k).mem;
  if (!lld || !lst || !mem) return std::nullopt;
  double local = *lld + *lst, global = gld.value_or(0) + gst.value_or(0);
  if (local + global <= 0) return std::nullopt;
  Finding f = base("local-memory", "Local-memory traffic (register spills or local arrays)", "Memory Workload Analysis",
                   "keep per-thread arrays in registers (index them with compile-time constants: unroll the "
                   "loop) or lower register pressure (__launch_bounds__, fewer live values); nvcc -Xptxas -v "
                   "prints the spill bytes");
  double share = local / (local + global);
  f.gain_pct = 100.0 * share * *mem / 100.0;
  f.formula = fmt::format("local sectors {} of all L1 global+local sectors x memory SOL {} = {}", pct(100 * share),
                          pct(*mem), pct(f.gain_pct));
  f.anchor = "kprof (ncu's MemoryCacheAccessPattern estimates only the access-pattern waste of local accesses)";
  return f;
}

std::optional<Finding> divergence(const KernelMetrics& k) {
  auto sm = read_sol(k).sm;
  if (!sm) return std::nullopt;
  Finding f = base("divergence", "Warp divergence (threads idle in executed instructions)",
                   "Warp State Statistics; Source Counters (branch and predication per line)",
                   "make the condition uniform per warp (bin or sort the work so all 32 threads take one path), "
                   "or move the rare long path to a separate pass");
  auto threads = catalog_value(k, m::kThreadsPerInst);
  auto npo = catalog_value(k, m::kThreadsPerInstPredOn);
  if (threads || npo) {
    double used = std::min(threads.value_or(32), npo.value_or(32));
    f.gain_pct = 100.0 * (1.0 - used / 32.0) * *sm / 100.0;
    f.formula = fmt::format("(1 - {} of 32 threads per instruction) x SM SOL {} = {}", fmt_sig(used, 3), pct(*sm),
                            pct(f.gain_pct));
    f.anchor = "ncu ThreadDivergence";
    return f;
  }
  auto uniform = catalog_value(k, m::kBranchUniformPct);
  if (!uniform) return std::nullopt;
  f.gain_pct = (100.0 - *uniform) * *sm / 100.0;
  f.formula = fmt::format("(1 - branch efficiency {}) x SM SOL {} = {}", pct(*uniform), pct(*sm), pct(f.gain_pct));
  f.anchor = "kprof (ncu ThreadDivergence's form, with branch efficiency for the thread share)";
  return f;
}

std::optional<Finding> stall(const KernelMetrics& k, const std::string& reason, const char* title, const char* step) {
  auto s = stall_share(k, reason);
  if (!s) return std::nullopt;
  Finding f = base(("stall-" + reason).c_str(), title,
                   "Warp State Statistics; Source Counters (stall sampling per line)", step);
  std::string cap_text;
  auto cap = issue_headroom(k, &cap_text);
  double share = s->share_pct / 100.0;
  if (cap) {
    f.gain_pct = 100.0 * std::min(share, *cap);
    f.formula =
        fmt::format("min({} share {}, issue headroom {}) = {}", reason, pct(s->share_pct), cap_text, pct(f.gain_pct));
  } else {
    f.gain_pct = s->share_pct;
    f.scope = "local";
    f.formula = fmt::format("{} share of warp cycles {} (no issue-slot cap: {} not collected)", reason,
                            pct(s->share_pct), m::kIssueActive);
  }
  f.anchor = "ncu CPIStall";
  return f;
}

std::optional<Finding> issue_slots(const KernelMetrics& k) {
  std::string text;
  auto h = issue_headroom(k, &text);
  if (!h) return std::nullopt;
  Finding f =
      base("issue-slots", "Idle issue slots (few eligible warps)", "Scheduler Statistics; Warp State Statistics",
           "give the schedulers more ready instructions: more independent work per thread (unroll, "
           "several loads in flight) or more warps; the leading stall says what they wait for");
  f.gain_pct = 100.0 * *h;
  f.formula = text;
  f.scope = "local";
  f.anchor = "ncu IssueSlotUtilization (a symptom: the stall and memory findings say why)";
  return f;
}

std::optional<Finding> hit_rate(const KernelMetrics& k, bool l1, std::optional<double> footprint) {
  auto hit = catalog_value(k, l1 ? m::kL1Hit : m::kL2Hit);
  auto next = catalog_value(k, l1 ? m::kL2Pct : m::kDramPct);
  auto reuse = load_reuse(k, footprint);
  if (!hit || !next || !reuse || reuse->factor <= 1) return std::nullopt;
  Finding f = l1 ? base("l1-hit-rate", "Reused data misses L1", "Memory Workload Analysis",
                        "tile the reused data through shared memory (or registers) so each block reads it once")
                 : base("l2-hit-rate", "Reused data misses L2", "Memory Workload Analysis",
                        "improve locality: work on tiles that fit in L2 and order the blocks so neighbours share "
                        "them (block swizzling)");
  f.gain_pct = 100.0 * (1.0 - 1.0 / reuse->factor) * (1.0 - *hit / 100.0) * *next / 100.0;
  f.formula = fmt::format("(1 - 1/reuse {}) x (1 - {} hit {}) x {} throughput {} = {}", fmt_sig(reuse->factor, 3),
                          l1 ? "L1" : "L2", pct(*hit), l1 ? "L2" : "DRAM", pct(*next), pct(f.gain_pct));
  f.anchor = "kprof (the traffic the next level would not carry if the reuse hit)";
  return f;
}

std::optional<Finding> occupancy(const KernelMetrics& k) {
  auto theo = catalog_value(k, m::kTheoreticalOcc), ach = catalog_value(k, m::kAchievedOcc);
  if (!theo || !ach || *theo <= 0) return std::nullopt;
  Finding f = base("occupancy", "Occupancy", "Occupancy; Launch Statistics",
                   "lower the resource that limits blocks per SM (registers: __launch_bounds__ or fewer live "
                   "values; shared memory: smaller tiles; block size), or even out the work per warp");
  bool low_theo = *theo < t::kLowTheoreticalOccupancyPct;
  double local = low_theo ? 1.0 - *theo / 100.0 : (*theo - *ach) / *theo;
  std::string text;
  auto cap = issue_headroom(k, &text);
  f.gain_pct = 100.0 * (cap ? std::min(local, *cap) : local);
  f.formula = low_theo ? fmt::format("min(1 - theoretical occupancy {}, issue headroom {}) = {}", pct(*theo),
                                     cap ? text : "n/a", pct(f.gain_pct))
                       : fmt::format("min((theoretical {} - achieved {}) / theoretical, issue headroom {}) = {}",
                                     pct(*theo), pct(*ach), cap ? text : "n/a", pct(f.gain_pct));
  f.anchor = low_theo ? "ncu TheoreticalOccupancy" : "ncu AchievedOccupancy";
  if (!cap) f.scope = "local";
  return f;
}

void sort_findings(std::vector<Finding>& fs) {
  std::stable_sort(fs.begin(), fs.end(),
                   [](const Finding& a, const Finding& b) { return a.ranked_pct() > b.ranked_pct(); });
}

}  // namespace

std::vector<Finding> findings_for_kernel(const KernelMetrics& k, const std::vector<SignalRow>& signals, Bottleneck cls,
                                         std::optional<double> footprint) {
  std::vector<Finding> out;
  auto add = [&](std::optional<Finding> f, const std::string& evidence) {
    if (!f) return;
    for (auto& e : out)
      if (e.id == f->id) {  // a second symptom of the same finding (divergence, issue slots)
        e.evidence += "; " + evidence;
        return;
      }
    f->evidence = evidence;
    out.push_back(*f);
  };
  for (const auto& s : signals) {
    if (s.state != SignalState::Fires) continue;
    std::string ev = s.symptom + ": " + s.value;
    if (s.id == "uncoalesced-loads")
      add(uncoalesced(k, true), ev);
    else if (s.id == "uncoalesced-stores")
      add(uncoalesced(k, false), ev);
    else if (s.id == "bank-conflicts")
      add(bank_conflicts(k), ev);
    else if (s.id == "spill")
      add(local_memory(k), ev);
    else if (s.id == "branch-efficiency" || s.id == "divergent-branches" || s.id == "thread-divergence")
      add(divergence(k), ev);
    else if (s.id == "stall-long_scoreboard")
      add(stall(k, "long_scoreboard", "Long-scoreboard stalls (waiting on global/local memory)",
                "keep more loads in flight per thread (unroll, vector loads), prefetch into shared memory, "
                "or raise occupancy to hide the latency"),
          ev);
    else if (s.id == "stall-barrier")
      add(stall(k, "barrier", "Barrier stalls",
                "balance the work between warps before each __syncthreads, synchronise less often, or use "
                "smaller blocks"),
          ev);
    else if (s.id == "issue-slots" || s.id == "eligible-warps")
      add(issue_slots(k), ev);
    else if (s.id == "l1-hit" || s.id == "l2-hit")
      add(hit_rate(k, s.id == "l1-hit", footprint), ev);
  }
  if (cls == Bottleneck::OccupancyBound) add(occupancy(k), "class Occupancy-Bound");
  sort_findings(out);
  return out;
}

void cap_findings(std::vector<Finding>& findings, double headroom_pct) {
  if (headroom_pct < 0) return;
  for (auto& f : findings)
    if (f.gain_pct > headroom_pct) f.capped_pct = headroom_pct;
  sort_findings(findings);
}

std::vector<NcuRuleResult> attach_rule_results(std::vector<Finding>& findings,
                                               const std::vector<NcuRuleResult>& rules) {
  std::vector<NcuRuleResult> unmatched;
  for (const auto& r : rules) {
    std::string id = finding_id_for_rule(r);
    Finding* f = nullptr;
    for (auto& x : findings)
      if (!id.empty() && x.id == id) f = &x;
    if (f)
      f->ncu.push_back(r);
    else if (r.speedup_pct)
      unmatched.push_back(r);
  }
  for (auto& f : findings) {
    std::optional<double> best;
    for (const auto& r : f.ncu)
      if (r.speedup_pct && (!best || *r.speedup_pct > *best)) best = r.speedup_pct;
    if (!best) continue;
    double d = f.gain_pct - *best;
    f.agreement = std::fabs(d) <= kAgreePts
                      ? fmt::format("agree (kprof {}, ncu {})", pct(f.gain_pct), pct(*best))
                      : fmt::format("differ: kprof {}, ncu {} ({} points {})", pct(f.gain_pct), pct(*best),
                                    fmt_sig(std::fabs(d), 3), d > 0 ? "higher" : "lower");
  }
  return unmatched;
}

}  // namespace kprof
