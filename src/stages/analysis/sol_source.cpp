#include "stages/analysis/sol_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

namespace m = metric;

std::string pct(double v) { return format_value(v, "%"); }

/// The leaves of one SOL as (metric, unit): ncu's own list when the report carries it
/// (`breakdown_metric`, a text metric of a .ncu-rep; a name kprof does not know is its own unit),
/// else kprof's copy of it (`committed`). `from_report` says which.
std::vector<std::pair<std::string, std::string>> leaves_of(const KernelMetrics& k, const char* breakdown_metric,
                                                           const std::vector<SolLeaf>& committed, bool* from_report) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string list = k.text(breakdown_metric);
  for (size_t start = 0; start < list.size();) {
    size_t end = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, end - start);
    if (!name.empty() && name.find("__") != std::string::npos) {
      std::string unit = sol_leaf_unit(name);
      out.emplace_back(name, unit.empty() ? name.substr(0, name.find('.')) : unit);
    }
    start = end + 1;
  }
  *from_report = !out.empty();
  if (out.empty())
    for (const auto& leaf : committed) out.emplace_back(leaf.name, leaf.unit);
  return out;
}

/// The units of `leaves` that `k` holds, each with its busiest leaf, busiest first; in a tie the
/// shared pipe comes after the unit it serves (the tensor pipe), otherwise the listed order.
std::vector<UnitLoad> leaf_units(const KernelMetrics& k,
                                 const std::vector<std::pair<std::string, std::string>>& leaves) {
  std::vector<UnitLoad> out;
  for (const auto& [name, unit] : leaves) {
    auto v = k.number(name);
    if (!v || std::isnan(*v)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const UnitLoad& u) { return u.name == unit; });
    if (it == out.end())
      out.push_back(UnitLoad{unit, name, *v, false});
    else if (*v > it->pct)
      *it = UnitLoad{unit, name, *v, false};
  }
  // A tie names the unit the work is for: the shared pipe serves the FP16 and tensor pipes.
  auto shared = [](const UnitLoad& u) { return u.name.rfind("Shared pipe", 0) == 0; };
  std::stable_sort(out.begin(), out.end(), [&](const UnitLoad& a, const UnitLoad& b) {
    return a.pct != b.pct ? a.pct > b.pct : !shared(a) && shared(b);
  });
  return out;
}

/// The catalog's units of one side (older reports): SM side the pipes, LSU/MIO issue and the issue
/// slots; memory side DRAM, L2, L1/TEX.
std::vector<UnitLoad> catalog_units(const KernelMetrics& k, bool sm) {
  std::vector<UnitLoad> out;
  for (const auto& u : unit_loads(k)) {
    bool memory_unit = u.name == "DRAM" || u.name == "L2" || u.name == "L1/TEX";
    if (memory_unit != sm) out.push_back(u);
  }
  return out;
}

std::optional<SolSource> source_of(const KernelMetrics& k, const char* sol_metric, const char* sol_name,
                                   const char* breakdown_metric, const std::vector<SolLeaf>& committed, bool sm) {
  auto sol = catalog_value(k, sol_metric);
  if (!sol) return std::nullopt;
  SolSource s;
  s.sol = sol_name;
  s.metric = sol_metric;
  s.sol_pct = *sol;
  s.candidates = leaf_units(k, leaves_of(k, breakdown_metric, committed, &s.breakdown_in_report));
  s.from_breakdown = !s.candidates.empty();
  if (!s.from_breakdown) s.candidates = catalog_units(k, sm);
  // The busiest candidate within kSolSourcePts of the SOL (with the breakdown: its maximum; the
  // catalog's units can read above memory SOL: lts__throughput is not in its breakdown).
  for (const auto& c : s.candidates)
    if (std::fabs(c.pct - *sol) <= threshold::kSolSourcePts) {
      s.source = c;
      break;
    }
  // The issue slots count every pipe's instructions: when a pipe also accounts for the SOL, the
  // pipe is the more specific unit (the FMA fixture: issue 70.7%, FMA pipe 66.3%: FMA-bound).
  if (s.source && s.source->name == "Issue slots")
    for (const auto& c : s.candidates)  // busiest first
      if (c.name.size() > 5 && c.name.compare(c.name.size() - 5, 5, " pipe") == 0 &&
          std::fabs(c.pct - *sol) <= threshold::kSolSourcePts) {
        s.source = c;
        break;
      }
  return s;
}

}  // namespace

std::string SolSource::text() const {
  if (source)
    return fmt::format("{} {} ({}{})", source->name, pct(source->pct), source->metric,
                       from_breakdown ? "" : "; no SOL breakdown in the report: the catalog's units");
  std::string list;
  for (size_t i = 0; i < candidates.size() && i < 4; ++i)
    list += (i ? ", " : "") + candidates[i].name + " " + pct(candidates[i].pct);
  return fmt::format("not identified: no unit within {} points of {} {} ({}{})",
                     fmt::format("{:g}", threshold::kSolSourcePts), sol, pct(sol_pct),
                     list.empty() ? "no unit collected" : "candidates: " + list,
                     from_breakdown ? "" : "; the report has no SOL breakdown");
}

std::optional<SolSource> sm_sol_source(const KernelMetrics& k) {
  return source_of(k, m::kSmSol, "SM SOL", m::kSmSolBreakdown, sm_sol_leaves(), true);
}

std::optional<SolSource> memory_sol_source(const KernelMetrics& k) {
  return source_of(k, m::kMemSol, "memory SOL", m::kMemSolBreakdown, memory_sol_leaves(), false);
}

bool is_memory_issue_unit(const std::string& unit) {
  return unit == "LSU pipe" || unit == "MIO" || unit == "LSU/MIO issue";
}

}  // namespace kprof
