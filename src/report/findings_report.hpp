// Markdown and JSON of "how far from the limit, and what to fix first": the time bound with its
// arithmetic, the implementation efficiency, the ranked findings with their formulas, ncu's own
// rule results beside them, and kprof's timing against ncu's. Used by ncu_summary.md,
// profile.json / analysis.json and the console verdict.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "stages/analysis/verdict.hpp"

namespace kprof {

/// "## Time bound and headroom" (at heading `level`): measured time, every term's arithmetic
/// (bytes / bandwidth = time; FLOPs / rate = time), the binding term, "at X% of the bound",
/// "at most Y x faster", the ceilings and what the bound rests on. A call without a bound gets
/// one sentence saying why.
std::string bound_markdown(const CallVerdict& call, int level);

/// The kernel's findings ranked by estimated gain (table: rank, finding, gain, formula, ncu's
/// estimate, section, next step), the cap note, the implementation efficiency, and ncu's own
/// rule results (or why they are absent), at heading `level`.
std::string findings_markdown(const Verdict& v, int level);

/// "### kprof against ncu" with the clock check's conclusion; "" when there is none.
std::string clock_check_markdown(const CallVerdict& call, int level);

/// JSON of a TimeBound: {measured_s, measured_how, terms: [{kind, ceiling, amount, rate, time_s,
/// arithmetic}], bound_s, theoretical_s, binding, pct_of_bound, pct_of_theoretical,
/// max_speedup, notes}.
nlohmann::json bound_json(const TimeBound& b);

/// JSON of the ceilings: {dram, dram_achievable, l2, l1: {per_s, how} | null, compute: [{name,
/// per_s, how}], precision, flop_peak, sm_clock_how}.
nlohmann::json ceilings_json(const Ceilings& c);

/// JSON of a kernel's findings: [{rank, id, title, evidence, gain_pct, capped_pct, formula,
/// scope, unit, unit_busy_pct, unit_work_removed_pct, anchor, section, next_step, ncu: [...],
/// agreement}] (percentages as numbers).
nlohmann::json findings_json(const Verdict& v);

/// JSON of a kernel's units, busiest first (the first is the limiter): [{name, metric, busy_pct,
/// compute_pipe}].
nlohmann::json units_json(const Verdict& v);

/// JSON of rule results: [{rule, name, section, title, message, speedup_pct, speedup_type}].
nlohmann::json rules_json(const std::vector<NcuRuleResult>& rules);

/// The findings below threshold::kNegligibleGainPct: {"below_pct", "line", "findings": [...]}.
nlohmann::json negligible_json(const Verdict& v);

/// The findings not formed for a zero or missing ratio input: [{"id", "title", "why"}].
nlohmann::json not_measured_json(const Verdict& v);

/// "Uncoalesced global loads: not measured (l1tex__... is 0; ...)".
std::string not_measured_line(const NotMeasured& n);

/// Console lines: the bound sentence (for the call's leading kernel, `v` being an element of
/// call.kernels), then the top `n` findings with their gains, the negligible line and
/// the findings not measured.
std::string findings_text(const CallVerdict& call, const Verdict& v, size_t n = 3);

}  // namespace kprof
