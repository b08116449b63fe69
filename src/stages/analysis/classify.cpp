#include "stages/analysis/classify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "stages/analysis/classify_detail.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/finding_catalog.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/limiter.hpp"
#include "stages/analysis/signals.hpp"
#include "stages/analysis/sol_source.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"
#include "core/enum_names.hpp"

namespace kprof {

/// The names of Bottleneck (core/enum_names.hpp).
constexpr auto kBottleneckNames = enum_names<Bottleneck>({{Bottleneck::MemoryBound, "Memory-Bound"},
                                                          {Bottleneck::ComputeBound, "Compute-Bound"},
                                                          {Bottleneck::OccupancyBound, "Occupancy-Bound"},
                                                          {Bottleneck::LatencyBound, "Latency-Bound"},
                                                          {Bottleneck::Mixed, "Mixed"},
                                                          {Bottleneck::NotClassified, "Not classified"}},
                                                         "Not classified");

std::string bottleneck_name(Bottleneck b) { return kBottleneckNames.name(b); }

/// The names of SignalState (core/enum_names.hpp).
constexpr auto kSignalStateNames = enum_names<SignalState>({{SignalState::Fires, "yes"},
                                                            {SignalState::Clear, "no"},
                                                            {SignalState::NotCollected, "not collected"},
                                                            {SignalState::NotApplicable, "n/a"}},
                                                           "n/a");

std::string signal_state_name(SignalState s) { return kSignalStateNames.name(s); }

namespace {

namespace m = metric;
namespace t = threshold;

using classify_detail::add_section;
using classify_detail::check_occupancy;
using classify_detail::classify_latency;
using classify_detail::num;
using classify_detail::pct;
using classify_detail::set_number;

/// The row naming the unit behind one SOL, or saying it is not identified (with the candidates).
void add_source_row(Verdict& v, const SolSource& src) {
  std::string metric = src.source ? src.source->metric : src.metric;
  v.evidence.push_back({"Unit behind " + src.sol, metric, src.text(),
                        fmt::format("within {} points of {} (kprof; {})", num(t::kSolSourcePts), src.sol,
                                    !src.from_breakdown       ? "the catalog's units: no breakdown"
                                    : src.breakdown_in_report ? "ncu's SOL breakdown in the report"
                                                              : "ncu's SOL breakdown as kprof lists it"),
                        src.source.has_value()});
  if (src.source) set_number(v, src.source->pct, "%");
}

/// The four rows of the seed's SOL conditions.
void add_sol_rows(Verdict& v, const SolReading& s) {
  std::string mem_metric =
      s.mem_from_units ? std::string("max(DRAM, L1, L2 throughput): ") + m::kMemSol + " not collected" : m::kMemSol;
  double sm = *s.sm, mem = *s.mem;
  v.evidence.push_back({fmt::format("Memory SOL > {}%", num(t::kBoundSolPct)), mem_metric, pct(mem),
                        fmt::format("> {}% (kernel-profile scripts)", num(t::kBoundSolPct)), mem > t::kBoundSolPct});
  set_number(v, mem, "%");
  v.evidence.push_back({fmt::format("SM SOL > {}%", num(t::kBoundSolPct)), m::kSmSol, pct(sm),
                        fmt::format("> {}% (kernel-profile scripts)", num(t::kBoundSolPct)), sm > t::kBoundSolPct});
  set_number(v, sm, "%");
  double gap = std::fabs(mem - sm);
  v.evidence.push_back({"One SOL much higher than the other", std::string(m::kMemSol) + " - " + m::kSmSol,
                        fmt::format("{} points ({} higher)", num(gap), mem >= sm ? "memory" : "SM"),
                        fmt::format(">= {} points (kprof's \"much higher\")", num(t::kMuchHigherPts)),
                        gap >= t::kMuchHigherPts});
  set_number(v, gap, "points");
  v.evidence.push_back({fmt::format("Both SOLs < {}%", num(t::kLatencySolPct)),
                        std::string(m::kSmSol) + ", " + m::kMemSol, fmt::format("SM {}, memory {}", pct(sm), pct(mem)),
                        fmt::format("< {}% (kernel-profile scripts)", num(t::kLatencySolPct)),
                        sm < t::kLatencySolPct && mem < t::kLatencySolPct});
}

void classify_memory(Verdict& v, const SolReading& s) {
  v.cls = Bottleneck::MemoryBound;
  auto unit = memory_unit(s);
  std::string units = fmt::format("DRAM {}, L1 {}, L2 {}", format_optional(s.dram, "%"), format_optional(s.l1, "%"),
                                  format_optional(s.l2, "%"));
  if (unit) {
    v.limiter = unit->name;
    v.evidence.push_back(
        {fmt::format("Memory unit behind memory SOL: {}", unit->name),
         std::string(m::kDramPct) + ", " + (s.l1_metric.empty() ? m::kL1Pct : s.l1_metric) + ", " + m::kL2Pct, units,
         unit->matches_sol ? fmt::format("equals memory SOL within {} point", num(t::kUnitMatchPts))
                           : "none equals memory SOL: the highest is named",
         true});
  } else {
    v.not_concluded.push_back(
        fmt::format("which memory unit (DRAM, L1, L2) limits: needs {}, {}, {}", m::kDramPct, m::kL1Pct, m::kL2Pct));
  }
  v.summary =
      fmt::format("Memory-Bound{}: memory SOL {} > {}% and {} points above SM SOL {}", unit ? " on " + unit->name : "",
                  pct(*s.mem), num(t::kBoundSolPct), num(*s.mem - *s.sm), pct(*s.sm));
  add_section(v, "Memory Workload Analysis");
}

/// The math pipes, busiest first: the pipes of pipe_utilizations without LSU, which is memory
/// instruction issue, not a compute pipe.
std::vector<PipeUse> compute_pipes(const KernelMetrics& k) {
  auto pipes = pipe_utilizations(k);
  pipes.erase(std::remove_if(pipes.begin(), pipes.end(), [](const PipeUse& p) { return p.name == "LSU"; }),
              pipes.end());
  return pipes;
}

/// SM SOL high because of memory instructions: the LSU pipe (sm__inst_executed_pipe_lsu) is busier
/// than every math pipe. The class is Memory-Bound on LSU/MIO instruction issue, never
/// "Compute-Bound on the LSU pipe".
void classify_lsu(Verdict& v, const SolReading& s, const UnitLoad& lsu, const std::vector<PipeUse>& math) {
  v.cls = Bottleneck::MemoryBound;
  v.limiter = "LSU/MIO issue";
  v.evidence.push_back(
      {"SM SOL comes from memory instruction issue", lsu.metric,
       fmt::format(
           "{} {}{}", lsu.name, pct(lsu.pct),
           math.empty() ? "" : fmt::format(", busiest math pipe {} {}", math.front().name, pct(math.front().pct))),
       "LSU/MIO busier than every math pipe (kprof: LSU issues loads and stores, it computes nothing)", true});
  set_number(v, lsu.pct, "%");
  v.summary =
      fmt::format("Memory-Bound on LSU/MIO instruction issue: SM SOL {} > {}% comes from the {} at {} (memory SOL {})",
                  pct(*s.sm), num(t::kBoundSolPct), lsu.name, pct(lsu.pct), pct(*s.mem));
  add_section(v, "Compute Workload Analysis");
  add_section(v, "Memory Workload Analysis");
}

/// The limiter of a Compute-Bound kernel whose SM SOL comes from `src` (not a math pipe of
/// compute_pipes): "ADU pipe, barriers", "Issue slots", ...
std::string source_limiter(const UnitLoad& src) {
  if (src.name == "ADU pipe") return "ADU pipe, barriers";
  return src.name;
}

void classify_compute(Verdict& v, const KernelMetrics& k, const SolReading& s, const std::optional<UnitLoad>& src) {
  v.cls = Bottleneck::ComputeBound;
  auto pipes = compute_pipes(k);
  bool src_is_math =
      src && std::any_of(pipes.begin(), pipes.end(), [&](const PipeUse& p) { return p.name + " pipe" == src->name; });
  std::string all;
  for (const auto& p : pipes) all += (all.empty() ? "" : ", ") + p.name + " " + pct(p.pct);
  if (src) {
    v.limiter = source_limiter(*src);  // its row is "Unit behind SM SOL" (add_source_row)
    if (!pipes.empty() && !src_is_math)
      v.evidence.push_back({"Busiest math pipe: " + pipes.front().name, pipes.front().metric, all,
                            "context: the unit behind SM SOL is not a math pipe", true});
  } else {
    // No unit accounts for SM SOL within kSolSourcePts: none is named (the row lists the candidates).
    v.limiter = "unit not identified";
    v.not_concluded.push_back("which unit limits: no unit accounts for SM SOL within " + num(t::kSolSourcePts) +
                              " points (row \"Unit behind SM SOL\")");
  }
  auto roof = roofline_point(k);
  if (roof.fp32_peak_pct)
    v.evidence.push_back({"FP32 FLOP rate", thread_inst_rate_metric("ffma") + " (and fadd, fmul) / " + m::kFfmaPeak,
                          pct(*roof.fp32_peak_pct) + " of FP32 peak", "context (ncu's roofline)", true});
  bool lead = *s.sm - *s.mem >= t::kMuchHigherPts;
  v.summary = lead ? fmt::format("Compute-Bound{}: SM SOL {} > {}% and {} points above memory SOL {}",
                                 src ? " on the " + v.limiter : " (the unit behind SM SOL not identified)", pct(*s.sm),
                                 num(t::kBoundSolPct), num(*s.sm - *s.mem), pct(*s.mem))
                   : fmt::format(
                         "Compute-Bound on the {}: it is {} busy (>= {}%), SM SOL {} > {}% and memory "
                         "SOL {} is not",
                         v.limiter,
                         src             ? pct(src->pct)
                         : pipes.empty() ? "n/a"
                                         : pct(pipes.front().pct),
                         num(t::kSaturatedPipePct), pct(*s.sm), num(t::kBoundSolPct), pct(*s.mem));
  add_section(v, "Compute Workload Analysis");
  add_section(v, "Instruction Statistics");
}

/// Mixed: the seed's last row. When a pipe is very busy (>= kVeryHighPipePct, ncu's
/// HighPipeUtilization "likely a performance bottleneck") the class stays Mixed (neither SOL leads
/// by 20 points) but the limiter is that pipe, with the memory unit beside it: a tensor-core GEMM
/// with both SOLs above 90% is at its limit on the tensor pipe, not "without a dominant symptom".
void classify_mixed(Verdict& v, const KernelMetrics& k, const SolReading& s, const std::vector<PipeUse>& pipes) {
  v.cls = Bottleneck::Mixed;
  double sm = *s.sm, mem = *s.mem;
  std::string base = fmt::format(
      "SM SOL {} and memory SOL {}: neither > {}% with a {}-point lead, not both < {}%, "
      "and no occupancy limit",
      pct(sm), pct(mem), num(t::kBoundSolPct), num(t::kMuchHigherPts), num(t::kLatencySolPct));
  if (!pipes.empty() && pipes.front().pct >= t::kVeryHighPipePct) {
    const PipeUse& p = pipes.front();
    auto unit = memory_unit(s);
    v.limiter = fmt::format("{} pipe at {}", p.name, pct(p.pct));
    v.evidence.push_back({fmt::format("A pipe is very busy ({} pipe)", p.name), p.metric, pct(p.pct),
                          fmt::format(">= {}% (ncu's HighPipeUtilization: \"likely a performance bottleneck\")",
                                      num(t::kVeryHighPipePct)),
                          true});
    set_number(v, p.pct, "%");
    v.summary = fmt::format("Mixed, limited by the {} pipe at {}{}: {}", p.name, pct(p.pct),
                            unit ? fmt::format(" with {} at {}", unit->name, pct(unit->pct)) : std::string(), base);
    add_section(v, "Compute Workload Analysis");
    if (mem > t::kBoundSolPct) add_section(v, "Memory Workload Analysis");
    return;
  }
  if (auto top = limiting_unit(k); top && top->pct >= t::kBusyUnitPct) {
    // Neither SOL leads, but one unit is busy: name it (limiter.hpp), as ncu's SOL breakdown would.
    v.limiter = fmt::format("{} at {}", top->name, pct(top->pct));
    v.evidence.push_back(
        {fmt::format("The busiest unit is busy ({})", top->name), top->metric, pct(top->pct),
         fmt::format(">= {}% (kprof: the kernel-profile scripts' SOL threshold, per unit)", num(t::kBusyUnitPct)),
         true});
    set_number(v, top->pct, "%");
    v.summary = fmt::format("Mixed, limited by {} at {}: {}", top->name, pct(top->pct), base);
    add_section(v, top->compute ? "Compute Workload Analysis" : "Memory Workload Analysis");
    return;
  }
  v.limiter = "no single dominant symptom";
  v.summary = "Mixed: " + base;
  add_section(v, "GPU Speed Of Light Throughput");
  add_section(v, "Compute Workload Analysis");
  add_section(v, "Memory Workload Analysis");
}

/// The ncu sections to read for a firing secondary signal: its finding's row (signal_sections).
std::vector<const char*> sections_for_signal(const std::string& id) {
  auto f = finding_for_signal(id);
  return f ? finding_row(*f).signal_sections : std::vector<const char*>{};
}

void add_signal_sections(Verdict& v) {
  for (const auto& row : v.signals) {
    if (row.state != SignalState::Fires) continue;
    for (const char* section : sections_for_signal(row.id)) add_section(v, section);
  }
}

}  // namespace

Verdict classify_kernel(const KernelMetrics& k, std::optional<double> footprint) {
  Verdict v;
  v.id = k.id;
  v.kernel = k.name;
  v.gpu_time_ns = catalog_value(k, m::kDuration).value_or(std::nan(""));
  v.missing_metrics = missing_catalog_metrics(k);
  v.signals = evaluate_signals(k, footprint);
  for (const auto& row : v.signals)
    if (row.state == SignalState::NotCollected) {
      std::string needs;
      for (const auto& name : row.missing) needs += (needs.empty() ? "" : ", ") + name;
      v.not_concluded.push_back("secondary signal \"" + row.symptom + "\": needs " + needs);
    }

  SolReading s = read_sol(k);
  if (!s.sm || !s.mem) {
    v.cls = Bottleneck::NotClassified;
    v.not_concluded.insert(v.not_concluded.begin(),
                           fmt::format("the primary class: needs SM SOL ({}) and memory SOL ({}, or "
                                       "the DRAM, L1 and L2 throughputs)",
                                       m::kSmSol, m::kMemSol));
    v.summary = "Not classified: the report lacks the Speed of Light metrics";
    v.limiter = "";
    add_section(v, "GPU Speed Of Light Throughput");
    return v;
  }
  add_sol_rows(v, s);
  if (s.mem_from_units)
    v.not_concluded.push_back(std::string("ncu's own memory SOL (") + m::kMemSol +
                              "): used the highest of DRAM, L1 and L2 throughput instead");
  double sm = *s.sm, mem = *s.mem;
  auto pipes = compute_pipes(k);
  // The unit behind SM SOL (ncu's breakdown, else the catalog's units), named only when it
  // accounts for SM SOL within kSolSourcePts.
  std::optional<UnitLoad> src;
  if (auto sm_src = sm_sol_source(k)) {
    src = sm_src->source;
    add_source_row(v, *sm_src);
  }
  if (auto mem_src = memory_sol_source(k)) add_source_row(v, *mem_src);
  // SM SOL from memory instruction issue is memory work (Memory-Bound on LSU/MIO issue); only a
  // unit that accounts for SM SOL is named so.
  std::optional<UnitLoad> lsu;
  if (src && is_memory_issue_unit(src->name)) lsu = src;
  bool lsu_leads = lsu.has_value();
  double busiest = src ? src->pct : (!pipes.empty() ? pipes.front().pct : 0.0);
  bool pipe_saturated = busiest >= t::kSaturatedPipePct || (lsu && lsu->pct >= t::kSaturatedPipePct);
  bool no_unit_near_peak = sm <= t::kBoundSolPct && mem <= t::kBoundSolPct;
  if (mem > t::kBoundSolPct && mem - sm >= t::kMuchHigherPts) {
    classify_memory(v, s);
  } else if (sm > t::kBoundSolPct && (sm - mem >= t::kMuchHigherPts || (mem <= t::kBoundSolPct && pipe_saturated)) &&
             lsu_leads) {
    classify_lsu(v, s, *lsu, pipes);
  } else if (sm > t::kBoundSolPct && (sm - mem >= t::kMuchHigherPts || (mem <= t::kBoundSolPct && pipe_saturated))) {
    if (sm - mem < t::kMuchHigherPts && !pipes.empty())
      v.evidence.push_back({fmt::format("A pipe is saturated ({} pipe)", pipes.front().name), pipes.front().metric,
                            pct(pipes.front().pct),
                            fmt::format(">= {}% with SM SOL > {}% >= memory SOL (kprof rule)",
                                        num(t::kSaturatedPipePct), num(t::kBoundSolPct)),
                            true});
    classify_compute(v, k, s, src);
  } else if (no_unit_near_peak && check_occupancy(v, k)) {
    // class set by check_occupancy
  } else if (sm < t::kLatencySolPct && mem < t::kLatencySolPct) {
    classify_latency(v, k, s);
  } else {
    classify_mixed(v, k, s, pipes);
  }
  add_signal_sections(v);
  return v;
}

CallVerdict classify_call(const MetricTable& table, std::optional<double> footprint) {
  CallVerdict call;
  std::map<std::string, double> time_by_name;
  for (const auto& k : table.kernels) {
    call.kernels.push_back(classify_kernel(k, footprint));
    const Verdict& v = call.kernels.back();
    if (!std::isnan(v.gpu_time_ns)) {
      time_by_name[v.kernel] += v.gpu_time_ns;
      call.total_gpu_time_ns += v.gpu_time_ns;
    }
  }
  if (call.kernels.empty()) return call;
  if (time_by_name.empty()) {
    for (size_t i = 0; i < call.kernels.size() && call.leading < 0; ++i)
      if (call.kernels[i].cls != Bottleneck::NotClassified) call.leading = static_cast<int>(i);
    if (call.leading < 0) call.leading = 0;
    call.leading_name = call.kernels[static_cast<size_t>(call.leading)].kernel;
    return call;
  }
  auto best = std::max_element(time_by_name.begin(), time_by_name.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  call.leading_name = best->first;
  call.leading_share_pct = call.total_gpu_time_ns > 0 ? 100.0 * best->second / call.total_gpu_time_ns : 0;
  double longest = -1;
  for (size_t i = 0; i < call.kernels.size(); ++i) {
    const Verdict& v = call.kernels[i];
    if (v.kernel == best->first && !std::isnan(v.gpu_time_ns) && v.gpu_time_ns > longest) {
      longest = v.gpu_time_ns;
      call.leading = static_cast<int>(i);
    }
  }
  return call;
}

}  // namespace kprof
