// The page's roofline: one inline SVG chart (log-log, FLOP/byte against FLOP/s) with one mark per
// kernel or version and the ceilings (memory slopes and compute roofs; the achievable one named),
// and the same numbers in a table under it. Built from the JSON's "roofline" and "ceilings" parts.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kprof {

/// One mark: a version's (or kernel's) arithmetic intensity (FLOP per DRAM byte, ncu's
/// dram__bytes) and its achieved FLOP/s.
struct RoofMark {
  std::string label;
  double flop_per_byte = 0;
  double flop_per_s = 0;
};

/// One ceiling: a bandwidth (bytes/s; a slope) or a compute peak (FLOP/s; a roof).
struct RoofCeiling {
  std::string name;  ///< "DRAM (achievable)", "FP32 peak", ...
  double per_s = 0;
  bool bandwidth = false;
  bool achievable = false;  ///< the ceiling measured on this GPU (kprof's copy kernel), named on the chart
};

/// The marks and ceilings read from one kernel entry of analysis.json/profile.json ("roofline")
/// and its call's "ceilings" (may be null: then ncu's peak DRAM bandwidth and the FP32 peak implied
/// by fp32_peak_pct stand in, named "(ncu peak)"). A kernel without FLOP or bytes gives no mark.
void roofline_from_json(const std::string& label, const nlohmann::json& kernel, const nlohmann::json& ceilings,
                        std::vector<RoofMark>& marks, std::vector<RoofCeiling>& roofs);

/// The SVG (marks carry class "mark" and a <title> with their numbers) followed by the table.
/// "" when there is no mark.
std::string roofline_html(const std::vector<RoofMark>& marks, const std::vector<RoofCeiling>& roofs);

}  // namespace kprof
