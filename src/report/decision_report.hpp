// The `decision` block of comparison.json and the decision lines of comparison.md (`kprof run
// --decide`, `kprof compare`): rendered from stages/results/decision.hpp's values, nothing
// decided here. Percentages are percent, ratios base / candidate (> 1: faster).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "stages/results/decision.hpp"

namespace kprof {

/// One candidate's decision as JSON: decision, reason, ratio, interval [lo, hi], confidence,
/// threshold_pct, floor_pct, min_gain_pct, rounds, more_rounds, within_threshold, confirmed, paired.
nlohmann::json candidate_decision_json(const CandidateDecision& d);

/// The whole block: rule, baseline, thresholds (confidence, min_gain_pct, aa_floor_pct with its
/// interval, threshold_pct), rounds made / used / discarded (by clock and by throttle state), the
/// band, stopped_by, seconds, confirmation, not_run, notes, and one entry per candidate
/// ({"name", ...candidate_decision_json}).
nlohmann::json decision_json(const DecisionReport& d);

/// comparison.md's "Decision" section: the rule and rounds in two lines, then one line per
/// version ("- v2: **keep**: faster by +3.1% ...").
std::string decision_markdown(const DecisionReport& d);

/// The terminal lines of the decision, one per version ("decision v2: keep (1.031x, ...)"), then one
/// per note ("decision note: the A/A check failed: ..."), which a version's reason may point to.
std::string decision_text_lines(const DecisionReport& d);

}  // namespace kprof
