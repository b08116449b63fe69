#include "report/sanitizer_report.hpp"

#include <fmt/format.h>

#include "core/term.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

bool requested(const CheckResult& r) { return !r.sanitizer.empty() || !r.sanitizer_skipped.empty(); }

std::string verdict(const SanitizerToolResult& t) {
  if (!t.error.empty()) return "FAIL (no verdict)";
  return t.pass ? "PASS" : "FAIL";
}

/// A Markdown table cell: no '|' or newline may break the row.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

std::string reports_table(const SanitizerToolResult& t, bool library) {
  std::vector<std::vector<std::string>> rows;
  size_t total = 0;
  for (const auto& g : t.output.reports) {
    if (g.library != library) continue;
    if (++total > kSanitizerReportsShown) continue;
    rows.push_back({cell(g.kind), g.severity, cell(g.kernel.empty() ? "(CUDA API call)" : g.kernel),
                    g.location.empty() ? "-" : cell(g.location), std::to_string(g.count), cell(g.detail)});
  }
  if (rows.empty()) return "";
  std::string title = library ? "In library kernels and CUDA API calls (not failing)" : "In the kernel";
  std::string more =
      total > rows.size() ? fmt::format(" (first {} of {} groups; all in correctness.json)", rows.size(), total) : "";
  return "\n" + title + more + ":\n\n" +
         markdown_table({"Kind", "Severity", "Kernel", "Location", "Count", "Detail"}, rows);
}

std::string tool_section(const SanitizerToolResult& t) {
  const SanitizerOutput& o = t.output;
  std::string md = fmt::format("\n### {}: {}\n\n", sanitizer_tool_name(t.tool), verdict(t));
  md += "- " + sanitizer_tool_line(t) + "\n";
  md += "- command: `" + t.command + "`\n";
  if (!t.log_path.empty()) md += "- whole output: " + t.log_path + "\n";
  if (o.summary_found && t.tool == SanitizerTool::Racecheck)
    md += fmt::format("- summary: RACECHECK SUMMARY: {} hazards displayed ({} errors, {} warnings)\n", o.hazards,
                      o.errors, o.warnings);
  else if (o.summary_found)
    md += fmt::format("- summary: ERROR SUMMARY: {} errors ({} printed)\n", o.errors, o.printed);
  md += fmt::format("- exit status {}{}, {} s\n", t.exit_code, t.timed_out ? " (timed out)" : "", fmt_sig(t.wall_s, 3));
  for (const auto& n : o.notes) md += "- compute-sanitizer: " + n + "\n";
  md += reports_table(t, false);
  md += reports_table(t, true);
  return md;
}

}  // namespace

std::string sanitizer_markdown(const CheckResult& r) {
  if (!requested(r)) return "";
  std::string md = "\n## Sanitizer (compute-sanitizer)\n\n";
  if (!r.sanitizer_skipped.empty()) return md + "Not run: " + r.sanitizer_skipped + "\n";
  md +=
      "The kernel ran once more per tool under NVIDIA compute-sanitizer (`kprof __check`, the same check with one "
      "trial, in a child "
      "process). Only reports in the kernel fail the check; those in PyTorch's, cuBLAS's or kprof's own kernels "
      "are listed as not failing.\n";
  for (const auto& t : r.sanitizer) md += tool_section(t);
  return md;
}

nlohmann::json sanitizer_json(const CheckResult& r) {
  if (!requested(r)) return nullptr;
  nlohmann::json j;
  bool pass = r.sanitizer_skipped.empty();
  j["skipped"] = r.sanitizer_skipped.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sanitizer_skipped);
  j["tools"] = nlohmann::json::array();
  for (const auto& t : r.sanitizer) {
    pass = pass && t.pass;
    const SanitizerOutput& o = t.output;
    nlohmann::json reports = nlohmann::json::array();
    for (const auto& g : o.reports)
      reports.push_back({{"kind", g.kind},
                         {"severity", g.severity},
                         {"kernel", g.kernel},
                         {"location", g.location},
                         {"detail", g.detail},
                         {"count", g.count},
                         {"library", g.library}});
    j["tools"].push_back({{"tool", sanitizer_tool_name(t.tool)},
                          {"pass", t.pass},
                          {"command", t.command},
                          {"log", t.log_path},
                          {"exit_code", t.exit_code},
                          {"timed_out", t.timed_out},
                          {"wall_s", t.wall_s},
                          {"error", t.error},
                          {"summary_found", o.summary_found},
                          {"errors", o.errors},
                          {"warnings", o.warnings},
                          {"hazards", o.hazards},
                          {"printed", o.printed},
                          {"user_errors", t.user_errors},
                          {"user_warnings", t.user_warnings},
                          {"library_errors", t.library_errors},
                          {"notes", o.notes},
                          {"reports", reports}});
  }
  j["pass"] = pass;
  return j;
}

std::string sanitizer_console(const CheckResult& r) {
  if (!requested(r)) return "";
  if (!r.sanitizer_skipped.empty())
    return "  " + styled("note:", Style::Warn) + " --sanitize not run: " + r.sanitizer_skipped + "\n";
  std::string s;
  for (const auto& t : r.sanitizer) {
    s += fmt::format("  {} {}\n", styled(t.pass ? "PASS" : "FAIL", t.pass ? Style::Ok : Style::Fail),
                     sanitizer_tool_line(t));
    if (!t.pass && !t.log_path.empty()) s += "    compute-sanitizer's output: " + t.log_path + "\n";
  }
  return s;
}

}  // namespace kprof
