#include "stages/analysis/limiter.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

namespace m = metric;

std::string pct(double v) { return format_value(v, "%"); }

}  // namespace

std::vector<UnitLoad> unit_loads(const KernelMetrics& k) {
  std::vector<UnitLoad> out;
  auto add = [&](const char* name, const char* metric_name, bool compute) {
    std::string used;
    if (auto v = catalog_value(k, metric_name, &used)) out.push_back({name, used, *v, compute});
  };
  add("DRAM", m::kDramPct, false);
  add("L2", m::kL2Pct, false);
  add("L1/TEX", m::kL1Pct, false);
  auto lsu = catalog_value(k, m::kPipeLsu);
  auto mio = catalog_value(k, m::kMioIssued);
  if (lsu || mio) {
    bool use_mio = mio && (!lsu || *mio > *lsu);
    out.push_back({"LSU/MIO issue", use_mio ? m::kMioIssued : m::kPipeLsu, use_mio ? *mio : *lsu, false});
  }
  add("FMA pipe", m::kPipeFma, true);
  add("ALU pipe", m::kPipeAlu, true);
  add("FP64 pipe", m::kPipeFp64, true);
  add("Tensor pipe", m::kPipeTensor, true);
  add("XU pipe", m::kPipeXu, true);
  add("ADU pipe", m::kPipeAdu, false);  // barriers, branches, constant loads: issue work, no math
  add("CBU pipe", m::kPipeCbu, false);
  add("Uniform pipe", m::kPipeUniform, false);
  add("TMA pipe", m::kPipeTma, false);
  add("Issue slots", m::kIssueActive, false);
  std::stable_sort(out.begin(), out.end(), [](const UnitLoad& a, const UnitLoad& b) { return a.pct > b.pct; });
  return out;
}

std::optional<UnitLoad> limiting_unit(const KernelMetrics& k) {
  auto u = unit_loads(k);
  if (u.empty()) return std::nullopt;
  return u.front();
}

bool some_unit_busy(const KernelMetrics& k) {
  auto u = limiting_unit(k);
  return u && u->pct >= threshold::kBusyUnitPct;
}

std::optional<L1Work> l1_work(const KernelMetrics& k) {
  auto gld = catalog_value(k, m::kLdSectors), gst = catalog_value(k, m::kStSectors);
  auto lld = catalog_value(k, m::kLocalLdSectors), lst = catalog_value(k, m::kLocalStSectors);
  auto shared = catalog_value(k, m::kSharedWavefronts);
  if (!gld && !shared) return std::nullopt;
  L1Work w;
  w.global_ld_sectors = gld.value_or(0);
  w.global_st_sectors = gst.value_or(0);
  w.local_sectors = lld.value_or(0) + lst.value_or(0);
  w.shared_wavefronts = shared.value_or(0);
  w.wavefronts = w.shared_wavefronts;
  w.how = fmt::format("global and local sectors ({}, {}, local ld/st) + shared wavefronts ({})", m::kLdSectors,
                      m::kStSectors, m::kSharedWavefronts);
  if (w.total() <= 0) return std::nullopt;
  return w;
}

std::optional<UnitGain> gain_at_unit(const KernelMetrics& k, const std::string& unit, double share,
                                     const std::set<std::string>& relieved) {
  auto units = unit_loads(k);
  auto it = std::find_if(units.begin(), units.end(), [&](const UnitLoad& u) { return u.name == unit; });
  if (it == units.end()) return std::nullopt;
  UnitGain g;
  g.unit = unit;
  g.unit_pct = it->pct;
  g.share_pct = 100.0 * std::clamp(share, 0.0, 1.0);
  double raw = g.share_pct * std::min(it->pct, 100.0) / 100.0;
  g.gain_pct = raw;
  g.text =
      fmt::format("removes {} of {}'s work x {} {} busy = {}", pct(g.share_pct), unit, unit, pct(it->pct), pct(raw));
  for (const auto& other : units) {
    if (other.name == unit || relieved.count(other.name)) continue;
    double cap = std::max(0.0, 100.0 - other.pct);  // that unit's work still takes other.pct of the time
    if (cap < g.gain_pct) {
      g.gain_pct = cap;
      g.capped = other;
      g.text += fmt::format("; capped at 100% - {} {} (the busiest unit it leaves as it is) = {}", other.name,
                            pct(other.pct), pct(cap));
    }
    break;  // units are busiest first: the first one not relieved is the cap
  }
  return g;
}

std::optional<UnitGain> best_gain(std::initializer_list<std::optional<UnitGain>> gains) {
  std::optional<UnitGain> best;
  for (const auto& g : gains)
    if (g && (!best || g->gain_pct > best->gain_pct)) best = g;
  return best;
}

std::optional<double> warp_ffma_count(const KernelMetrics& k) {
  auto rate = catalog_value(k, thread_inst_rate_metric("ffma"));
  auto cycles = catalog_value(k, m::kSmspCycles);
  if (!rate || !cycles || *rate * *cycles <= 0) return std::nullopt;
  return *rate * *cycles / 32.0;
}

}  // namespace kprof
