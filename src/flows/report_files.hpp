// The report files of env, check and profile/analyze, written whole (write_file_atomic) from the
// renderers of report/: report/ renders, flows/ (and cli/ through these) writes.
#pragma once

#include <string>

#include "report/correctness_report.hpp"
#include "report/env_report.hpp"
#include "report/ncu_report.hpp"
#include "report/profile_report.hpp"

namespace kprof {

/// Writes env_check.md (env_markdown) at `md_path` and env_check.json (env_json) next to it, each
/// atomically. Throws Error (exit 2) when a file cannot be written.
/// With `html`, env_check.html beside them too (report/html_pages.hpp env_page).
void write_env_reports(const EnvReport& r, const std::string& md_path, bool html = true);

/// Writes DIR/correctness.md and DIR/correctness.json atomically.
/// Throws Error (exit 2) when DIR cannot be written.
void write_correctness_reports(const std::string& dir, const CheckResult& r, const HeaderRows& header);

/// Writes DIR/report.html of `kprof check` (passed or failed) from correctness_json; returns its path.
std::string write_check_page(const std::string& dir, const CheckResult& r, const HeaderRows& header);

/// Paths written by write_ncu_reports.
struct NcuReportFiles {
  std::string summary;  ///< DIR/ncu_summary.md
  std::string details;  ///< DIR/ncu_details.md
};

/// Writes DIR/ncu_summary.md and DIR/ncu_details.md atomically (write_file_atomic), creating DIR.
/// Throws Error (exit 2) naming the path when a file cannot be written.
NcuReportFiles write_ncu_reports(const std::string& dir, const MetricTable& table, const CallVerdict& call,
                                 const NcuReportHeader& header);

/// Writes DIR/ncu_summary.md (unclassified_summary) and DIR/ncu_details.md (unclassified_details)
/// when no classification was made. Throws Error (exit 2) when a file cannot be written.
void write_unclassified_reports(const std::string& dir, const NcuReportHeader& header, const std::string& failure,
                                const std::string& hint, const std::string& ncu_log, const MetricTable* table);

/// Writes `html` to DIR/NAME (default report.html) whole and returns the path. Throws Error
/// (exit 2) when it cannot be written.
std::string write_html_page(const std::string& dir, const std::string& html, const std::string& name = "report.html");

}  // namespace kprof
