#include "stages/analysis/assess.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "stages/analysis/classify.hpp"
#include "stages/analysis/finding_catalog.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/findings.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

namespace m = metric;
namespace t = threshold;

/// The unit a stall reason points at ("" for reasons that point at none).
std::string stall_unit(const std::string& reason) {
  static const std::pair<const char*, const char*> units[] = {{"long_scoreboard", "memory"},
                                                              {"lg_throttle", "memory"},
                                                              {"drain", "memory"},
                                                              {"membar", "memory"},
                                                              {"tex_throttle", "memory"},
                                                              {"short_scoreboard", "shared"},
                                                              {"mio_throttle", "shared"},
                                                              {"math_pipe_throttle", "compute"},
                                                              {"wait", "compute"},
                                                              {"dispatch_stall", "compute"},
                                                              {"gmma", "compute"},
                                                              {"barrier", "sync"},
                                                              {"branch_resolving", "divergence"}};
  for (const auto& [r, u] : units)
    if (reason == r) return u;
  return "";
}

const char* unit_words(const std::string& unit) {
  if (unit == "memory") return "global/local memory";
  if (unit == "shared") return "shared memory / MIO";
  if (unit == "compute") return "a busy pipe";
  if (unit == "sync") return "synchronisation";
  if (unit == "divergence") return "branching";
  return "";
}

/// The units the verdict's limiter and findings point at.
std::set<std::string> verdict_units(const Verdict& v) {
  std::set<std::string> u;
  if (v.cls == Bottleneck::MemoryBound) {
    u.insert("memory");
    if (v.limiter == "L1" || v.limiter == "LSU/MIO issue") u.insert("shared");  // shared memory lives in L1
  }
  if (v.cls == Bottleneck::ComputeBound) u.insert("compute");
  if (v.cls == Bottleneck::Mixed) u.insert({"compute", "memory", "shared"});
  for (const auto& f : v.findings)
    if (const FindingRow* row = find_finding_row(f.id); row && *row->area) u.insert(row->area);
  return u;
}

/// Rule results of launch `i` (report order), matched by position or by ncu's ID.
const KernelRuleResults* rules_for(const std::vector<KernelRuleResults>& all, size_t i, int id, size_t n_kernels) {
  if (all.size() == n_kernels) return &all[i];
  for (const auto& r : all)
    if (r.index == id) return &r;
  return nullptr;
}

void attach_rules(Verdict& v, const AnalysisContext& ctx, size_t i, const KernelMetrics& k, size_t n) {
  if (!ctx.rules) {
    v.ncu_rules_note = ctx.rules_note.empty() ? "ncu's rule results were not read" : ctx.rules_note;
    return;
  }
  const KernelRuleResults* r = rules_for(*ctx.rules, i, k.id, n);
  if (!r || r->rules.empty()) {
    v.ncu_rules_note =
        "the report holds no rule results for this launch (ncu applies its rules only to the "
        "sections it collected: profile with --metrics sections or full)";
    return;
  }
  v.ncu_rules = r->rules;
  v.ncu_only = attach_rule_results(v.findings, r->rules);
}

/// The signal rows whose finding was not measured (a zero or missing ratio input) say so: their
/// "yes" rested on that ratio.
void mark_not_measured(Verdict& v) {
  for (const auto& n : v.not_measured)
    for (auto& row : v.signals)
      if (row.id == n.id && row.state == SignalState::Fires) {
        row.state = SignalState::NotApplicable;
        row.value = "not measured: " + n.why;
      }
}

void add_clock_check(CallVerdict& call, const MetricTable& table, const AnalysisContext& ctx) {
  if (!ctx.measured_ms || !ctx.during || call.total_gpu_time_ns <= 0) return;
  ClockCheckInput in;
  in.kprof_ms = *ctx.measured_ms;
  in.kprof_std_ms = ctx.measured_std_ms;
  in.kprof_label = ctx.measured_label;
  in.ncu_ms = call.total_gpu_time_ns * 1e-6;
  double cycles = 0;
  bool all = true;
  for (const auto& k : table.kernels) {
    auto c = k.number(m::kGpcCyclesMax);
    if (c)
      cycles += *c;
    else
      all = false;
  }
  if (all && cycles > 0) in.ncu_cycles = cycles;
  in.ncu_launches = table.kernels.size();
  if (call.leading >= 0) in.ncu_hz = catalog_value(table.kernels[static_cast<size_t>(call.leading)], m::kSmFreq);
  in.during = *ctx.during;
  call.clocks = check_clocks(in);
}

}  // namespace

std::string explaining_stalls(const KernelMetrics& k, const Verdict& v) {
  if (v.cls == Bottleneck::LatencyBound || v.cls == Bottleneck::NotClassified) return "";
  std::set<std::string> units = verdict_units(v);
  std::string out;
  auto stalls = ranked_stalls(k);
  for (size_t i = 0; i < stalls.size() && i < static_cast<size_t>(t::kTopStalls); ++i) {
    const auto& s = stalls[i];
    std::string u = stall_unit(s.reason);
    if (s.share_pct < t::kExplainingStallPct || u.empty() || !units.count(u)) continue;
    out +=
        fmt::format("{}{} {} ({})", out.empty() ? "" : ", ", s.reason, format_value(s.share_pct, "%"), unit_words(u));
  }
  return out;
}

CallVerdict assess_call(const MetricTable& table, const AnalysisContext& ctx) {
  std::optional<double> footprint = ctx.work ? ctx.work->min_bytes : std::nullopt;
  CallVerdict call = classify_call(table, footprint);
  assess_verdict(table, call, ctx);
  return call;
}

void assess_verdict(const MetricTable& table, CallVerdict& call, const AnalysisContext& ctx) {
  std::optional<double> footprint = ctx.work ? ctx.work->min_bytes : std::nullopt;
  const size_t n = std::min(table.kernels.size(), call.kernels.size());
  for (size_t i = 0; i < n; ++i) {
    const KernelMetrics& k = table.kernels[i];
    Verdict& v = call.kernels[i];
    if (v.cls == Bottleneck::NotClassified) continue;
    v.efficiency = implementation_efficiency(k);
    v.units = unit_loads(k);
    v.findings = findings_for_kernel(k, v.signals, v.cls, footprint, &v.not_measured);
    mark_not_measured(v);
    attach_rules(v, ctx, i, k, n);
    v.leading_stalls = explaining_stalls(k, v);
    if (!v.leading_stalls.empty()) {
      v.summary += "; leading stalls: " + v.leading_stalls;
      v.evidence.push_back({"Leading stalls explain the limiter",
                            std::string(m::kStallPrefix) + "* / " + m::kWarpLatency, v.leading_stalls,
                            fmt::format(">= {}% of warp cycles and pointing at the limiter or a finding (kprof)",
                                        fmt_sig(t::kExplainingStallPct)),
                            true});
    }
  }
  if (call.leading >= 0) {
    const KernelMetrics& lead = table.kernels[static_cast<size_t>(call.leading)];
    Ceilings c = ceilings_from_ncu(lead, ctx.sm_hz);
    auto known = ceilings_for_gpu(ctx.known_gpus, lead.text(m::kDeviceName));
    c.dram_achievable = ctx.dram_achievable ? ctx.dram_achievable : known ? known->dram_achievable : std::nullopt;
    c.floor = ctx.launch_floor ? ctx.launch_floor : known ? known->floor : std::nullopt;
    call.ceilings = c;
    call.work = ctx.work;
    ExecutedWork executed = executed_work(table.kernels);  // the compute term without declared or counted FLOPs
    if (ctx.work && ctx.measured_ms && *ctx.measured_ms > 0)
      call.bound = compute_bound(*ctx.work, c, *ctx.measured_ms * 1e-3, ctx.measured_how, &executed);
    // Against ncu's own duration, so at ncu's own SM clock (not the timed calls').
    Ceilings at_ncu_clock = ceilings_from_ncu(lead, std::nullopt);
    at_ncu_clock.dram_achievable = c.dram_achievable;
    at_ncu_clock.floor = c.floor;
    call.implementation_bound = implementation_bound(executed_work(lead), at_ncu_clock);
  }
  for (size_t i = 0; i < n; ++i) {
    Verdict& v = call.kernels[i];
    if (v.findings.empty()) continue;
    if (!call.bound || !call.bound->bound_s) {
      split_negligible(v);
      v.findings_note =
          "Gains are not capped: no time bound is known (an ncu report alone does not record the "
          "buffers; `kprof profile` and `kprof run` compute it; the implementation bound holds at this "
          "kernel's own traffic and work, which the fixes change). They do not add up: each is the most "
          "its own fix could save.";
      continue;
    }
    double headroom_s = call.bound->headroom() * call.bound->measured_s;
    double kt = std::isnan(v.gpu_time_ns) ? 0 : v.gpu_time_ns * 1e-9;
    double cap = n == 1 || kt <= 0 ? 100.0 * call.bound->headroom() : std::min(100.0, 100.0 * headroom_s / kt);
    cap_findings(v.findings, cap);
    split_negligible(v);
    v.findings_note = fmt::format(
        "Each gain is capped at the headroom to the time bound, {} of this kernel's time "
        "(the call is at {} of its bound); gains do not add up: each is the most its own fix "
        "could save.",
        format_value(cap, "%"), format_value(call.bound->pct_of_bound.value_or(0), "%"));
  }
  add_clock_check(call, table, ctx);
}

}  // namespace kprof
