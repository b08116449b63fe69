// The report.html of each command, composed from the JSON document the command writes beside it
// (report/html.hpp says why: every number on the page is the JSON's). Pure: returns the page; the
// flows write it (flows/report_files.hpp write_html_page).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "report/html.hpp"

namespace kprof {

/// `kprof analyze` (analysis.json) and `kprof profile` (profile.json; with its correctness.json,
/// null when absent): per kernel the verdict, bound, findings and hot lines; the roofline of the
/// kernels; the header rows as the environment summary.
std::string ncu_page(const std::string& title, const nlohmann::json& doc, const nlohmann::json& correctness,
                     const HtmlOptions& opt);

/// `kprof run` (comparison.json) with each profiled version's profile.json (name, document):
/// versions, every timing sample, the decision, one roofline with every version, each version's
/// leading kernel in detail, and the environment (the header).
std::string run_page(const nlohmann::json& comparison,
                     const std::vector<std::pair<std::string, nlohmann::json>>& profiles, const HtmlOptions& opt);

/// `kprof compare` of saved results (its comparison.json): per version and input the row, its
/// samples, its verdicts and decisions, the gate.
std::string compare_page(const nlohmann::json& compare);

/// `kprof env` (env_check.json) and `kprof check` (correctness.json, passed or failed; env may be
/// null): the readiness items / the per-output comparison.
std::string env_page(const nlohmann::json& env);

/// `kprof compare` of Nsight Compute reports (report/report_diff_report.hpp report_diff_json):
/// the one-sample note, per pair the time ratio, class, SOL with its unit, findings gone and
/// appeared, the metrics that moved most; one roofline mark per report (its leading kernel).
std::string report_diff_page(const nlohmann::json& diff);
std::string check_page(const nlohmann::json& correctness);

}  // namespace kprof
