// comparison.md / comparison.json of `kprof run` (and the version rows of `kprof compare`): one
// row per kernel version, rendered from the typed VersionRow / RowComparison values
// (stages/results/versions.hpp). JSON is the values serialized (to_json / from_json).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "report/schema.hpp"
#include "stages/results/versions.hpp"

namespace kprof {

/// The correctness cell: "PASS", "FAIL: <reason>", "ERROR (load): <error>", "ERROR (check): <error>",
/// "not run: <why>", "not checked".
std::string correctness_text(const VersionRow& r);
/// The short form for terminal tables: "PASS", "FAIL", "ERROR", "not run", "not checked".
std::string correctness_word(const VersionRow& r);
/// The class cell: the class name, "not classified: <why>", "not profiled (correctness failed)",
/// "not profiled (load failed)", "not profiled (check failed)" or "not profiled".
std::string class_text(const VersionRow& r);
/// "long_scoreboard (62%)", or "" without a leading stall.
std::string leading_stall_text(const VersionRow& r);
/// "Bank conflicts (75.6%)", or "" without a finding.
std::string top_finding_text(const VersionRow& r);

/// A row as JSON (schema_version 2): numbers as numbers, status and class as ids / names.
void to_json(nlohmann::json& j, const VersionRow& r);
/// Reads what to_json wrote. Throws nlohmann::json::exception on a wrong type; absent keys keep
/// their defaults; an unknown status id throws Error (exit 2).
void from_json(const nlohmann::json& j, VersionRow& r);
/// A row's comparison with the baseline as JSON: speedup_vs_first, vs_first (change_id),
/// noise_ms, fastest, tied_with_fastest.
void to_json(nlohmann::json& j, const RowComparison& c);

/// The version table (Markdown) with the fastest version marked.
std::string versions_table_markdown(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp);

/// comparison.md: header table (dims, seed, buffer sizes, GPU, time basis), the version table,
/// notes.
std::string comparison_markdown(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                                const std::vector<std::pair<std::string, std::string>>& header,
                                const std::string& basis);

/// The same as JSON: {"schema_version", "header", "time_basis", "versions": [row + "comparison"]}.
nlohmann::json comparison_json(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp,
                               const std::vector<std::pair<std::string, std::string>>& header,
                               const std::string& basis);

/// The terminal summary of `kprof run` / `kprof compare`: version, correct, median, speedup, vs
/// first, class (a plain Markdown table), then the legend line.
std::string versions_summary_text(const std::vector<VersionRow>& rows, const std::vector<RowComparison>& cmp);

}  // namespace kprof
