// Helpers shared by the classifier's files (classify.cpp: the SOL classes; classify_latency.cpp:
// Occupancy- and Latency-Bound). Internal to the analysis stage.
#pragma once

#include <algorithm>
#include <string>

#include "core/text.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof::classify_detail {

/// A percentage as the reports print it ("12.3%").
inline std::string pct(double v) { return format_value(v, "%"); }
/// A plain number to 3 significant digits.
inline std::string num(double v) { return fmt_sig(v, 3); }

/// Gives the last evidence row its value as a number with its unit (profile.json's "value").
inline void set_number(Verdict& v, double x, const char* unit) {
  v.evidence.back().number = x;
  v.evidence.back().unit = unit;
}

/// Adds an ncu section to the verdict's "look next" list once.
inline void add_section(Verdict& v, const std::string& s) {
  if (std::find(v.next_sections.begin(), v.next_sections.end(), s) == v.next_sections.end())
    v.next_sections.push_back(s);
}

/// Occupancy rows; returns true when Occupancy-Bound holds (sets class, limiter, summary): the grid
/// fills a wave, a block limit exists, theoretical occupancy < kLowTheoreticalOccupancyPct or achieved
/// far below it, latency hiding failed (thresholds.hpp) and no tail effect explains it.
bool check_occupancy(Verdict& v, const KernelMetrics& k);

/// Latency-Bound (both SOLs < kLatencySolPct): the likely cause from waves per SM, eligible warps,
/// a tail effect and the leading stall reasons. `s` must hold both SOLs.
void classify_latency(Verdict& v, const KernelMetrics& k, const SolReading& s);

}  // namespace kprof::classify_detail
