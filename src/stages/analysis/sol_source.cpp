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

/// The units of `leaves` that `k` holds, each with its busiest leaf, busiest first.
std::vector<UnitLoad> leaf_units(const KernelMetrics& k, const std::vector<SolLeaf>& leaves) {
  std::vector<UnitLoad> out;  // in the leaves' order, so a tie keeps the listed unit first (Tensor before Shared)
  for (const auto& leaf : leaves) {
    auto v = k.number(leaf.name);
    if (!v || std::isnan(*v)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const UnitLoad& u) { return u.name == leaf.unit; });
    if (it == out.end())
      out.push_back(UnitLoad{leaf.unit, leaf.name, *v, false});
    else if (*v > it->pct)
      *it = UnitLoad{leaf.unit, leaf.name, *v, false};
  }
  std::stable_sort(out.begin(), out.end(), [](const UnitLoad& a, const UnitLoad& b) { return a.pct > b.pct; });
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
                                   const std::vector<SolLeaf>& leaves, bool sm) {
  auto sol = catalog_value(k, sol_metric);
  if (!sol) return std::nullopt;
  SolSource s;
  s.sol = sol_name;
  s.metric = sol_metric;
  s.sol_pct = *sol;
  s.candidates = leaf_units(k, leaves);
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
  return source_of(k, m::kSmSol, "SM SOL", sm_sol_leaves(), true);
}

std::optional<SolSource> memory_sol_source(const KernelMetrics& k) {
  return source_of(k, m::kMemSol, "memory SOL", memory_sol_leaves(), false);
}

bool is_memory_issue_unit(const std::string& unit) {
  return unit == "LSU pipe" || unit == "MIO" || unit == "LSU/MIO issue";
}

}  // namespace kprof
