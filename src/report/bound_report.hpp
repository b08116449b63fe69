// Markdown and JSON of the implementation bound (stages/analysis/bound.hpp implementation_bound):
// how far the leading launch is from ncu's peaks at its own DRAM traffic and executed FLOPs.
// Known from an ncu report alone, so `kprof analyze` shows it too; used by ncu_summary.md and
// profile.json / analysis.json ("call" -> "implementation_bound").
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "stages/analysis/verdict.hpp"

namespace kprof {

/// "## Implementation bound (as executed)" at heading `level`: the measured time, each term's
/// arithmetic (its DRAM bytes / DRAM peak; its executed FLOPs per precision / that peak), the
/// sentence ("at X% of it, at most ~Y x faster at this traffic and work") and its notes.
/// "" when the call has no implementation bound.
std::string implementation_bound_markdown(const CallVerdict& call, int level);

/// JSON of an implementation bound, every quantity a number with its unit:
/// {scope, measured: {value, unit: "s", how}, bound: {value, unit: "s"} | null,
///  pct_of_bound: {value, unit: "%"} | null, max_speedup: {value, unit: "x"} | null, binding,
///  terms: [{kind, ceiling, precision, amount: {value, unit: "B" | "FLOP"},
///           rate: {value, unit: "B/s" | "FLOP/s"}, time: {value, unit: "s"}, arithmetic}],
///  notes, sentence}.
nlohmann::json implementation_bound_json(const TimeBound& b);

}  // namespace kprof
