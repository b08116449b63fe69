// The "Sanitizer" part of correctness.md / correctness.json / the console (kprof check --sanitize):
// per compute-sanitizer tool the command, the error count, the first reports grouped and the
// verdict. Formatting only; correctness_report.cpp calls these.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "stages/verify/check.hpp"

namespace kprof {

/// Reports listed per tool and per side (the user's kernels, library kernels) in the Markdown.
inline constexpr size_t kSanitizerReportsShown = 5;

/// The "## Sanitizer (compute-sanitizer)" section: one subsection per tool with its verdict, the
/// command, the error count of its summary line, a table of the first kSanitizerReportsShown
/// report groups in the user's kernels (kind, kernel, location, count, detail) and another of
/// those "in library kernels (not failing)". "" when --sanitize was not given.
std::string sanitizer_markdown(const CheckResult& r);

/// The "sanitizer" block: null without --sanitize, else {"pass", "skipped", "tools": [{"tool",
/// "pass", "command", "log", "exit_code", "timed_out", "wall_s", "error", "summary_found",
/// "errors", "warnings", "hazards", "printed", "user_errors", "user_warnings", "library_errors",
/// "notes", "reports": [{"kind", "severity", "kernel", "location", "detail", "count", "library"}]}]}.
/// Every report group is listed (at most --print-limit were printed per tool).
nlohmann::json sanitizer_json(const CheckResult& r);

/// One line per tool for the terminal ("  FAIL racecheck: 4096 hazards in the kernel: Race reported
/// between Write access and Read access in reverse(...) at race_shared.cu:18 ..."), "" without --sanitize.
std::string sanitizer_console(const CheckResult& r);

}  // namespace kprof
