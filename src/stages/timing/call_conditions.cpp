#include "stages/timing/call_conditions.hpp"

#include <algorithm>
#include <cmath>

#include "stages/env/nvml.hpp"

namespace kprof {
namespace {

void merge(CallConditions& c, const NvmlSample& s) {
  if (s.sm_mhz) c.sm_mhz = c.sm_mhz ? std::min(*c.sm_mhz, *s.sm_mhz) : *s.sm_mhz;
  if (s.reasons) c.reasons = c.reasons.value_or(0) | *s.reasons;
}

}  // namespace

std::vector<CallConditions> conditions_per_call(const std::vector<SampleWindow>& windows,
                                                const std::vector<NvmlSample>& after,
                                                const std::vector<ClockSample>& samples) {
  std::vector<CallConditions> out(windows.size());
  for (size_t i = 0; i < windows.size(); ++i) {
    const auto& w = windows[i];
    auto it = std::lower_bound(samples.begin(), samples.end(), w.begin_ms,
                               [](const ClockSample& s, double t) { return s.t_ms < t; });
    for (; it != samples.end() && it->t_ms <= w.end_ms; ++it) merge(out[i], it->v);
    if (i < after.size()) merge(out[i], after[i]);
  }
  return out;
}

std::optional<unsigned> clock_floor_mhz(std::optional<unsigned> max_sm_mhz, double floor_frac) {
  if (!max_sm_mhz || !(floor_frac > 0)) return std::nullopt;
  return static_cast<unsigned>(std::floor(*max_sm_mhz * floor_frac));
}

bool discards(const CallConditions& c, std::optional<unsigned> floor_mhz, bool discard_throttled) {
  const bool below = floor_mhz && c.sm_mhz && *c.sm_mhz < *floor_mhz;
  const bool throttle = c.reasons && nvml_reasons_throttle(*c.reasons);
  return below || (throttle && discard_throttled);
}

std::vector<bool> keep_calls(const std::vector<CallConditions>& calls, std::optional<unsigned> floor_mhz,
                             bool discard_throttled, size_t min_keep, DiscardSummary& summary) {
  summary = DiscardSummary{};
  std::vector<bool> keep(calls.size(), true);
  std::vector<unsigned> clocks;
  for (size_t i = 0; i < calls.size(); ++i) {
    const auto& c = calls[i];
    bool below = floor_mhz && c.sm_mhz && *c.sm_mhz < *floor_mhz;
    bool throttle = c.reasons && nvml_reasons_throttle(*c.reasons);
    if (throttle) ++summary.throttled_seen;
    if (below) ++summary.below_floor;
    if (throttle && discard_throttled) ++summary.throttled;
    if (discards(c, floor_mhz, discard_throttled)) {
      keep[i] = false;
      ++summary.total;
    }
    if (c.sm_mhz) clocks.push_back(*c.sm_mhz);
  }
  if (calls.size() - summary.total < min_keep && summary.total > 0) {
    summary.kept_all = true;
    std::fill(keep.begin(), keep.end(), true);
  }
  if (!clocks.empty()) {
    std::sort(clocks.begin(), clocks.end());
    summary.median_sm_mhz = clocks[clocks.size() / 2];
    summary.min_sm_mhz = clocks.front();
    summary.max_sm_mhz = clocks.back();
  }
  return keep;
}

std::vector<double> kept_values(const std::vector<double>& xs, const std::vector<bool>& keep) {
  std::vector<double> out;
  for (size_t i = 0; i < xs.size() && i < keep.size(); ++i)
    if (keep[i]) out.push_back(xs[i]);
  return out;
}

}  // namespace kprof
