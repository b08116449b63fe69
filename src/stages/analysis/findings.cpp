#include "stages/analysis/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/finding_catalog.hpp"
#include "stages/analysis/findings_detail.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

using namespace detail;

std::string pct(double v) { return format_value(v, "%"); }

/// Tie-break of equal gains (often two findings capped by the same unit): a fix of a unit's work
/// first, then the row's tie rank (occupancy, then a stall reason, then idle issue slots: a
/// symptom of the others).
int tie_rank(const Finding& f) {
  if (!f.unit.empty()) return 0;
  const FindingRow* row = find_finding_row(f.id);
  return row ? row->tie_rank : 3;
}

/// The rule of findings_for_kernel: "" when every ratio input of `f` holds a non-zero number,
/// else which input is missing or zero, and the kernel's asynchronous copies when it made any
/// (their bytes do not count in LDG ratios).
std::string unmeasured_input(const KernelMetrics& k, const Finding& f) {
  std::string why;
  for (const auto& name : f.ratio_inputs) {
    auto v = catalog_value(k, name);
    if (!v)
      why += (why.empty() ? "" : "; ") + name + " not collected";
    else if (*v == 0)
      why += (why.empty() ? "" : "; ") + name + " is 0";
  }
  if (why.empty()) return why;
  if (auto copies = async_copies(k)) why += "; " + copies->text();
  return why;
}

/// True for the findings whose root is the issue headroom (a symptom of latency not hidden).
bool latency_finding(const Finding& f) {
  const FindingRow* row = find_finding_row(f.id);
  return row && row->cause == CauseGroup::IssueHeadroom;
}

/// Merges latency findings with the same gain (within kSameGainPts) into the first of them by
/// tie_rank: one root, the issue headroom that caps them all, so one finding with their evidence.
void merge_same_root(std::vector<Finding>& fs) {
  for (size_t i = 0; i < fs.size(); ++i) {
    if (!latency_finding(fs[i])) continue;
    std::vector<size_t> group = {i};
    for (size_t j = i + 1; j < fs.size(); ++j)
      if (latency_finding(fs[j]) && std::fabs(fs[j].gain_pct - fs[i].gain_pct) <= threshold::kSameGainPts)
        group.push_back(j);
    if (group.size() < 2) continue;
    size_t keep = *std::min_element(group.begin(), group.end(),
                                    [&](size_t a, size_t b) { return tie_rank(fs[a]) < tie_rank(fs[b]); });
    Finding& k = fs[keep];
    std::string titles = k.title;
    for (size_t j : group) {
      if (j == keep) continue;
      titles += "; " + fs[j].title;
      k.evidence += "; " + fs[j].evidence;
      k.next_step += "; " + fs[j].next_step;
      k.merged_ids.push_back(fs[j].id);
    }
    k.title = "Issue headroom: " + titles;
    k.formula += " (one root: the same issue headroom caps each)";
    for (auto it = group.rbegin(); it != group.rend(); ++it)
      if (*it != keep) fs.erase(fs.begin() + static_cast<std::ptrdiff_t>(*it));
  }
}

/// One finding per cause (docs/METHOD.md): a finding whose gain is capped by a unit (capped_by)
/// that another finding names as the unit its fix works on (unit), and that promises no more than
/// that finding (gain within kSameGainPts of it or below), is that finding's cause seen again: it
/// is merged into it (its id into merged_ids, its title into the evidence), not listed as a cause
/// of its own. The finding naming the unit with the largest gain receives it.
void merge_same_cause(std::vector<Finding>& fs) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < fs.size() && !merged; ++i) {
      const std::string& cap = fs[i].capped_by;
      if (cap.empty()) continue;
      std::optional<size_t> into;
      for (size_t j = 0; j < fs.size(); ++j)
        if (j != i && fs[j].unit == cap && fs[i].gain_pct <= fs[j].gain_pct + threshold::kSameGainPts &&
            (!into || fs[j].gain_pct > fs[*into].gain_pct))
          into = j;
      if (!into) continue;
      Finding& k = fs[*into];
      k.evidence += fmt::format("; {} ({}, capped by the same {})", fs[i].title, pct(fs[i].gain_pct), cap);
      k.merged_ids.push_back(fs[i].id);
      k.merged_ids.insert(k.merged_ids.end(), fs[i].merged_ids.begin(), fs[i].merged_ids.end());
      fs.erase(fs.begin() + static_cast<std::ptrdiff_t>(i));
      merged = true;
    }
  }
}

/// The builder of a finding formed by a firing secondary signal (its row's `signals`); nullopt for
/// the findings read from the busy units' work instead.
std::optional<Finding> from_signal(FindingId id, const KernelMetrics& k, std::optional<double> footprint) {
  switch (id) {
    case FindingId::UncoalescedLoads:
      return uncoalesced(k, true);
    case FindingId::UncoalescedStores:
      return uncoalesced(k, false);
    case FindingId::BankConflicts:
      return bank_conflicts(k);
    case FindingId::LocalMemory:
      return local_memory(k);
    case FindingId::Divergence:
      return divergence(k);
    case FindingId::StallLongScoreboard:
      return stall(k, id,
                   "keep more loads in flight per thread (unroll, vector loads), prefetch into shared memory, or "
                   "raise occupancy to hide the latency");
    case FindingId::StallBarrier:
      return stall(k, id,
                   "balance the work between warps before each __syncthreads, synchronise less often, or use "
                   "smaller blocks");
    case FindingId::IssueSlots:
      return issue_slots(k);
    case FindingId::L1HitRate:
      return hit_rate(k, true, footprint);
    case FindingId::L2HitRate:
      return hit_rate(k, false, footprint);
    case FindingId::GlobalReloads:
    case FindingId::SharedReloads:
    case FindingId::VectorLoads:
    case FindingId::PipePeak:
    case FindingId::AduBarriers:
    case FindingId::Ilp:
    case FindingId::Occupancy:
      return std::nullopt;
  }
  return std::nullopt;
}

void sort_findings(std::vector<Finding>& fs) {
  std::stable_sort(fs.begin(), fs.end(), [](const Finding& a, const Finding& b) {
    if (std::fabs(a.ranked_pct() - b.ranked_pct()) > 1e-9) return a.ranked_pct() > b.ranked_pct();
    return tie_rank(a) < tie_rank(b);
  });
}

}  // namespace

std::vector<Finding> findings_for_kernel(const KernelMetrics& k, const std::vector<SignalRow>& signals, Bottleneck cls,
                                         std::optional<double> footprint, std::vector<NotMeasured>* not_measured) {
  std::vector<Finding> out;
  auto add = [&](std::optional<Finding> f, const std::string& evidence) {
    if (!f) return;
    if (std::string why = unmeasured_input(k, *f); !why.empty()) {
      if (not_measured &&
          std::none_of(not_measured->begin(), not_measured->end(), [&](const NotMeasured& n) { return n.id == f->id; }))
        not_measured->push_back({f->id, f->title, why});
      return;
    }
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
    if (auto id = finding_for_signal(s.id)) add(from_signal(*id, k, footprint), s.symptom + ": " + s.value);
  }
  // Findings read from the work of the busy units, not from a row of the seed's table.
  auto unit_ev = [&](const Finding& f) {
    return f.unit.empty() ? std::string("limiter") : fmt::format("{} {} busy", f.unit, format_value(*f.unit_pct, "%"));
  };
  for (auto f : {global_reloads(k, footprint), shared_reloads(k), vector_loads(k), pipe_peak(k)})
    if (f) add(f, unit_ev(*f));
  if (cls == Bottleneck::OccupancyBound) add(occupancy(k), "class Occupancy-Bound");
  if (auto f = adu_barriers(k)) add(f, unit_ev(*f));
  if (cls == Bottleneck::ComputeBound)
    if (auto f = ilp(k)) add(f, f->evidence);
  merge_same_root(out);
  merge_same_cause(out);
  sort_findings(out);
  return out;
}

void split_negligible(Verdict& v) {
  auto small = [](const Finding& f) { return f.ranked_pct() < threshold::kNegligibleGainPct; };
  for (const auto& f : v.findings)
    if (small(f)) v.negligible.push_back(f);
  v.findings.erase(std::remove_if(v.findings.begin(), v.findings.end(), small), v.findings.end());
  sort_findings(v.negligible);
}

std::string negligible_line(const Verdict& v) {
  if (v.negligible.empty()) return "";
  std::string list;
  for (const auto& f : v.negligible) list += (list.empty() ? "" : ", ") + f.title + " " + pct(f.ranked_pct());
  return fmt::format("negligible (< {}% of the kernel's time each): {}", fmt_sig(threshold::kNegligibleGainPct), list);
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
      if (!id.empty() && (x.id == id || std::count(x.merged_ids.begin(), x.merged_ids.end(), id) > 0)) f = &x;
    if (f)
      f->ncu.push_back(r);
    else if (r.speedup_pct)
      unmatched.push_back(r);
  }
  for (auto& f : findings) {
    std::optional<double> best;
    const FindingRow* own = find_finding_row(f.id);
    for (const auto& r : f.ncu) {
      // Only estimates of the finding's own cause group: a finding merged in for its cap by this
      // finding's unit (docs/METHOD.md "One finding per cause", rule 2) brings its rules, shown,
      // but its estimate is of another cause.
      const FindingRow* about = find_finding_row(finding_id_for_rule(r));
      if (own && about && about->cause != own->cause) continue;
      if (r.speedup_pct && (!best || *r.speedup_pct > *best)) best = r.speedup_pct;
    }
    if (!best) continue;
    double d = f.gain_pct - *best;
    f.agreement = std::fabs(d) <= kAgreePts
                      ? fmt::format("agree (kprof {}, ncu {})", pct(f.gain_pct), pct(*best))
                      : fmt::format("differ: kprof {}, ncu {} ({} points {}){}", pct(f.gain_pct), pct(*best),
                                    fmt_sig(std::fabs(d), 3), d > 0 ? "higher" : "lower",
                                    f.differ_why.empty() ? "" : ": " + f.differ_why);
  }
  return unmatched;
}

}  // namespace kprof
