// The page's versions part (kprof run, kprof compare), from comparison.json: the version table
// (correctness, median, speedup, class, % of bound), every timing sample of each version on one
// axis (an inline SVG strip chart, one dot per sample), and the keep/revert/inconclusive decision
// with its interval, the threshold and the A/A floor drawn.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kprof {

/// The version table of comparison.json's "versions".
std::string versions_table_html(const nlohmann::json& comparison);

/// One SVG with a row per version: every sample of its compared time (time_basis: "kernel" ->
/// kernel_samples_ms, "call" -> call_samples_ms, else time_samples_ms) as a dot (class "sample"),
/// its median as a bar; a table of n / min / median / max under it. "" when no version has samples.
std::string samples_html(const nlohmann::json& comparison);

/// The "decision" block: rule, threshold, rounds, and per version its decision with the interval
/// of the time ratio drawn against 1, the threshold band and the A/A floor band. "" without one.
std::string decision_html(const nlohmann::json& decision);

}  // namespace kprof
