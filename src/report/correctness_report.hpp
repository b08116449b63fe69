// correctness.md and correctness.json (the seed's correctness report, plus never-written
// elements, guard-zone hits, modified inputs, faults and warnings).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "stages/verify/check.hpp"

namespace kprof {

/// Already-formatted "key: value" rows for a report header (kernel, GPU, dims, seed...).
using HeaderRows = std::vector<std::pair<std::string, std::string>>;

/// The Markdown report. Layout: title with PASS/FAIL, header table, per-output results table,
/// then per failing output the first mismatches and never-written indices, 8-value previews,
/// guard-zone hits, modified inputs, a fault section, the reference notes, the compute-sanitizer
/// section (--sanitize; report/sanitizer_report.hpp) and warnings.
std::string correctness_markdown(const CheckResult& r, const HeaderRows& header);

/// The same content as JSON: {"status", "header", "trials":[{"seed","pass","outputs":[...]}],
/// "fault", "warnings", ..., "sanitizer" (null without --sanitize)}.
nlohmann::json correctness_json(const CheckResult& r, const HeaderRows& header);

/// One line per trial/output for the terminal ("PASS C  max|delta| 1.2e-07 ..."), plus the fault
/// and one line per compute-sanitizer tool.
std::string correctness_console(const CheckResult& r);

}  // namespace kprof
