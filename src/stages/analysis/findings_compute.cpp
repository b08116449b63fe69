// Compute-side and latency findings: divergence, a pipe at its peak, stall reasons, idle issue
// slots and occupancy. Latency-hiding findings are capped by the busiest unit, so they lead only
// when no unit is busy (docs/CLASSIFICATION.md "Findings from the limiter").
#include <fmt/format.h>

#include <algorithm>

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

/// ncu's IssueSlotUtilization estimate with the busiest unit instead of the busiest SOL:
/// min(1 - issue active, 1 - the busiest unit other than the issue slots), as a fraction.
/// `cap_unit` (when given) gets that unit's name when its term is the smaller, else "".
std::optional<double> issue_headroom(const KernelMetrics& k, std::string* text, std::string* cap_unit = nullptr) {
  auto issue = catalog_value(k, m::kIssueActive);
  if (!issue) return std::nullopt;
  std::optional<UnitLoad> top;
  for (const auto& u : unit_loads(k))
    if (u.name != "Issue slots") {
      top = u;
      break;
    }
  double a = 1.0 - *issue / 100.0;
  double b = top ? 1.0 - std::min(top->pct, 100.0) / 100.0 : 1.0;
  if (text)
    *text = fmt::format("min(1 - issue active {}, 1 - busiest unit {} {}) = {}", pct(*issue), top ? top->name : "n/a",
                        top ? pct(top->pct) : "n/a", pct(100 * std::min(a, b)));
  if (cap_unit) *cap_unit = top && b <= a ? top->name : "";  // the unit's term binds (ties: the unit is the wall)
  return std::max(0.0, std::min(a, b));
}

}  // namespace

std::optional<Finding> divergence(const KernelMetrics& k) {
  auto sm = read_sol(k).sm;
  if (!sm) return std::nullopt;
  Finding f = make_finding(FindingId::Divergence,
                           "make the condition uniform per warp (bin or sort the work so all 32 threads take one "
                           "path), or move the rare long path to a separate pass");
  auto threads = catalog_value(k, m::kThreadsPerInst);
  auto npo = catalog_value(k, m::kThreadsPerInstPredOn);
  f.differ_why = "both scale the idle-thread share by SM SOL; they differ when ncu reads a different thread ratio";
  if (threads || npo) {
    double used = std::min(threads.value_or(32), npo.value_or(32));
    f.gain_pct = 100.0 * (1.0 - used / 32.0) * *sm / 100.0;
    f.share_pct = 100.0 * (1.0 - used / 32.0);
    f.formula = fmt::format("(1 - {} of 32 threads per instruction) x SM SOL {} = {}", fmt_sig(used, 3), pct(*sm),
                            pct(f.gain_pct));
    f.anchor = "ncu ThreadDivergence";
  } else {
    auto uniform = catalog_value(k, m::kBranchUniformPct);
    if (!uniform) return std::nullopt;
    f.gain_pct = (100.0 - *uniform) * *sm / 100.0;
    f.formula = fmt::format("(1 - branch efficiency {}) x SM SOL {} = {}", pct(*uniform), pct(*sm), pct(f.gain_pct));
    f.anchor = "kprof (ncu ThreadDivergence's form, with branch efficiency for the thread share)";
  }
  f.unit = "SM";
  f.unit_pct = *sm;
  return f;
}

std::optional<Finding> pipe_peak(const KernelMetrics& k) {
  auto top = limiting_unit(k);
  if (!top || !top->compute || top->pct < t::kBusyUnitPct) return std::nullopt;
  Finding f = make_finding(FindingId::PipePeak, "");
  f.unit = top->name;
  f.unit_pct = top->pct;
  auto roof = roofline_point(k);
  if (top->name == "FMA pipe" && roof.fp32_peak_pct) {
    f.title = fmt::format("FP32 at {} of its SIMT peak (FMA pipe {} busy)", pct(*roof.fp32_peak_pct), pct(top->pct));
    f.next_step =
        "the FP32 SIMT peak is this algorithm's limit in FP32: stop here, or move the multiply-adds to tensor "
        "cores (TF32 / BF16 mma: changes the precision), or remove non-FFMA work from the FMA pipe (index math)";
    f.gain_pct = std::max(0.0, 100.0 - *roof.fp32_peak_pct);
    f.formula = fmt::format("1 - FP32 FLOP rate {} of peak ({} x 2 x {}) = {}", pct(*roof.fp32_peak_pct),
                            thread_inst_rate_metric("ffma"), m::kFfmaPeak, pct(f.gain_pct));
  } else {
    f.title = fmt::format("{} near its peak ({} busy)", top->name, pct(top->pct));
    f.next_step =
        "the pipe is the limit: issue fewer instructions to it (cheaper math, tensor cores for matrix work, "
        "fewer conversions), or accept the kernel as at its compute limit";
    f.gain_pct = std::max(0.0, 100.0 - top->pct);
    f.formula = fmt::format("1 - {} {} ({}) = {}", top->name, pct(top->pct), top->metric, pct(f.gain_pct));
  }
  f.share_pct = f.gain_pct;
  f.anchor = "ncu HighPipeUtilization (the pipe's share of its peak)";
  return f;
}

std::optional<Finding> stall(const KernelMetrics& k, FindingId id, const char* step) {
  const std::string reason = finding_row(id).stall_reason;
  auto s = stall_share(k, reason);
  if (!s) return std::nullopt;
  Finding f = make_finding(id, step);
  std::string cap_text, cap_unit;
  auto cap = issue_headroom(k, &cap_text, &cap_unit);
  double share = s->share_pct / 100.0;
  if (cap) {
    f.gain_pct = 100.0 * std::min(share, *cap);
    if (*cap < share) f.capped_by = cap_unit;
    f.formula =
        fmt::format("min({} share {}, issue headroom {}) = {}", reason, pct(s->share_pct), cap_text, pct(f.gain_pct));
  } else {
    f.gain_pct = s->share_pct;
    f.scope = "local";
    f.formula = fmt::format("{} share of warp cycles {} (no issue-slot cap: {} not collected)", reason,
                            pct(s->share_pct), m::kIssueActive);
  }
  f.anchor = "ncu CPIStall";
  f.differ_why = "ncu's CPIStall estimate is the stall's share of the cycles; kprof caps it by the issue headroom";
  return f;
}

std::optional<Finding> issue_slots(const KernelMetrics& k) {
  std::string text, cap_unit;
  auto h = issue_headroom(k, &text, &cap_unit);
  if (!h) return std::nullopt;
  Finding f = make_finding(FindingId::IssueSlots,
                           "give the schedulers more ready instructions: more independent work per thread (unroll, "
                           "several loads in flight) or more warps; the leading stall says what they wait for");
  f.gain_pct = 100.0 * *h;
  f.capped_by = cap_unit;
  f.formula = text;
  f.scope = "local";
  f.anchor = "ncu IssueSlotUtilization (a symptom: the stall and memory findings say why)";
  f.differ_why = "ncu caps by the busiest SOL; kprof by the busiest unit, pipes and L1/TEX included";
  return f;
}

std::optional<Finding> occupancy(const KernelMetrics& k) {
  auto theo = catalog_value(k, m::kTheoreticalOcc), ach = catalog_value(k, m::kAchievedOcc);
  if (!theo || !ach || *theo <= 0) return std::nullopt;
  Finding f = make_finding(FindingId::Occupancy,
                           "lower the resource that limits blocks per SM (registers: __launch_bounds__ or fewer live "
                           "values; shared memory: smaller tiles; block size), or even out the work per warp");
  bool low_theo = *theo < t::kLowTheoreticalOccupancyPct;
  double local = low_theo ? 1.0 - *theo / 100.0 : (*theo - *ach) / *theo;
  std::string text, cap_unit;
  auto cap = issue_headroom(k, &text, &cap_unit);
  f.gain_pct = 100.0 * (cap ? std::min(local, *cap) : local);
  if (cap && *cap < local) f.capped_by = cap_unit;
  f.formula = low_theo ? fmt::format("min(1 - theoretical occupancy {}, issue headroom {}) = {}", pct(*theo),
                                     cap ? text : "n/a", pct(f.gain_pct))
                       : fmt::format("min((theoretical {} - achieved {}) / theoretical, issue headroom {}) = {}",
                                     pct(*theo), pct(*ach), cap ? text : "n/a", pct(f.gain_pct));
  f.anchor = low_theo ? "ncu TheoreticalOccupancy" : "ncu AchievedOccupancy";
  f.differ_why = "ncu's occupancy estimates are not capped by the issue headroom; kprof's are";
  if (!cap) f.scope = "local";
  return f;
}

std::optional<Finding> adu_barriers(const KernelMetrics& k) {
  auto top = limiting_unit(k);
  if (!top || top->name != "ADU pipe" || top->pct < t::kBusyUnitPct) return std::nullopt;
  auto g = gain_at_unit(k, "ADU pipe", 1.0, {"Issue slots"});  // fewer instructions also free issue slots
  if (!g) return std::nullopt;
  Finding f = make_finding(FindingId::AduBarriers,
                           "synchronise less often: one __syncthreads per shared-memory exchange (double-buffer the "
                           "tile so the second barrier goes), warp-level exchanges (__shfl_sync) where a warp owns the "
                           "data, fewer block-uniform branches");
  set_unit_gain(f, *g, "at most all of the ADU pipe's work");
  f.anchor = "kprof (ncu's SOL breakdown names the ADU pipe; no ncu rule estimates it)";
  return f;
}

std::optional<Finding> ilp(const KernelMetrics& k) {
  auto stalls = ranked_stalls(k);
  double dep = 0, dep_share = 0, stalled = 0;
  for (const auto& s : stalls) {
    if (s.reason == "not_selected") continue;  // a ready warp that another one beat: not a stall on data
    stalled += s.cycles;
    if (s.reason == "wait" || s.reason == "short_scoreboard") {
      dep += s.cycles;
      dep_share += s.share_pct;
    }
  }
  if (stalled <= 0 || 100.0 * dep / stalled < t::kDependencyStallPct) return std::nullopt;
  std::optional<PipeUse> math;
  for (const auto& p : pipe_utilizations(k))
    if (p.name != "LSU") {
      math = p;
      break;
    }
  auto top = limiting_unit(k);
  if (!math || !top || math->pct >= t::kVeryHighPipePct) return std::nullopt;
  Finding f = make_finding(FindingId::Ilp,
                           "give each thread independent work: several accumulators instead of one chain (sum into "
                           "acc[0..3], add them at the end), unroll the loop so independent FMAs interleave");
  f.gain_pct = std::min(dep_share, std::max(0.0, 100.0 - top->pct));
  if (100.0 - top->pct < dep_share) f.capped_by = top->name;
  f.formula = fmt::format(
      "min(wait + short-scoreboard stalls {} of the warp cycles ({} of the stall cycles), 1 - busiest unit {} {}) = {}",
      pct(dep_share), pct(100.0 * dep / stalled), top->name, pct(top->pct), pct(f.gain_pct));
  f.evidence = fmt::format("dependency stalls {} of the stall cycles; {} pipe {} busy (below {}%)",
                           pct(100.0 * dep / stalled), math->name, pct(math->pct), fmt_sig(t::kVeryHighPipePct, 3));
  f.unit = math->name + " pipe";
  f.unit_pct = math->pct;
  f.anchor = "kprof (ncu's CPIStall names the wait stall; no ncu rule estimates ILP)";
  return f;
}

}  // namespace kprof::detail
