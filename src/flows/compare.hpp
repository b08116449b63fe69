// `kprof compare A B ...`: saved results of different runs (commits, days, machines) compared
// version by version: the comparison table and noise-aware verdicts of `kprof run`, the change of
// every headline metric, and a regression gate for CI scripts (--fail-if-slower). This flow reads
// the files and writes the reports; the comparison is stages/results/compare.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/results/compare.hpp"

namespace kprof {

/// Reads `path` (file or folder: comparison.json first, else profile.json). Throws Error (exit 2)
/// when it is missing, not JSON, or neither a comparison nor a profile result.
CompareInput read_compare_input(const std::string& path, const std::string& label);

/// Reads the inputs, compares them, writes DIR/comparison.md and DIR/comparison.json (whole),
/// prints the summary. Returns the exit code (0, or 1 when the gate failed); throws Error (exit 2)
/// for fewer than two inputs or an unreadable file.
/// With `html`, DIR/report.html too (its path in comparison.json "report_html").
int run_compare(const std::vector<std::string>& paths, std::optional<double> fail_if_slower_pct,
                const std::string& output_dir, bool html = true);

}  // namespace kprof
