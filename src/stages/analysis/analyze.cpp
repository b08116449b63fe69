#include "stages/analysis/analyze.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"

namespace kprof {

std::string impossible_value_note(const InvalidValue& v) { return "impossible value ignored: " + describe(v); }

NcuAnalysis analyze_ncu_csv(const std::string& csv_text, const AnalysisContext& ctx) {
  return analyze_metric_table(parse_ncu_raw_csv(csv_text), ctx);
}

NcuAnalysis analyze_metric_table(MetricTable table, const AnalysisContext& ctx) {
  NcuAnalysis a;
  a.table = std::move(table);
  std::vector<std::vector<InvalidValue>> removed;
  for (auto& k : a.table.kernels) removed.push_back(drop_invalid_values(k));
  a.verdict = assess_call(a.table, ctx);
  for (size_t i = 0; i < removed.size(); ++i)
    for (const auto& b : removed[i]) {
      a.verdict.kernels[i].not_concluded.push_back(impossible_value_note(b));
      a.invalid_values.push_back(fmt::format("launch {}: {}", a.table.kernels[i].id, describe(b)));
    }
  return a;
}

bool has_usable_metrics(const NcuAnalysis& a) {
  for (const auto& v : a.verdict.kernels)
    if (v.cls != Bottleneck::NotClassified) return true;
  return false;
}

std::vector<std::string> ncu_export_argv(const std::string& ncu, const std::string& report) {
  return {ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"};
}

namespace {

/// The last non-empty line of `text` (ncu's error is usually there), or "".
std::string last_line(const std::string& text) {
  auto lines = split(trim(text), '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!trim(*it).empty()) return trim(*it);
  return "";
}

}  // namespace

bool is_ncu_report_file(const std::string& path) { return ends_with(path, ".ncu-rep") || ends_with(path, ".ncu-repz"); }

std::string ncu_export_csv_file(const std::string& path, const std::string& tmp_csv, double timeout_s) {
  if (!path_exists(path))
    throw usage_error("no such file: " + path,
                      "pass an ncu report (.ncu-rep) or a CSV exported "
                      "with ncu --csv --page raw");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw usage_error(path + " is a folder, not an ncu report",
                      "pass the report file itself: a .ncu-rep or a CSV exported with ncu --csv --page raw");
  if (!is_ncu_report_file(path)) return path;
  const bool compressed = ends_with(path, ".ncu-repz");
  const std::string needs = compressed ? " (a compressed .ncu-repz needs Nsight Compute 2026 or newer)" : "";
  std::string ncu = find_on_path("ncu");
  if (ncu.empty())
    throw usage_error("reading " + path + " needs Nsight Compute's ncu, which is not on PATH" + needs,
                      fmt::format("add ncu to PATH (it ships with the CUDA toolkit under nsight-compute*/), or "
                                  "export the report where ncu is installed and pass the CSV: {} > report.csv",
                                  shell_join(ncu_export_argv("ncu", path))));
  ProcessOptions opts;
  opts.timeout_s = timeout_s;
  opts.stdout_file = tmp_csv;
  std::vector<std::string> argv = ncu_export_argv(ncu, path);
  ProcessResult r = run_process(argv, opts);
  if (r.timed_out)
    throw check_failed(fmt::format("ncu did not finish exporting {} within {} s", path, timeout_s),
                       "raise the limit with --timeout, or export it yourself: " + shell_join(argv));
  if (!r.ok()) {
    std::string why = last_line(r.err).empty() ? last_line(r.out) : last_line(r.err);
    std::string version;
    if (compressed) version = parse_tool_version(run_process({ncu, "--version"}).out);
    throw usage_error(fmt::format("ncu{} could not read {} (exit {}){}", version.empty() ? "" : " " + version, path,
                                  r.exit_code, why.empty() ? "" : ": " + why),
                      compressed ? "a compressed report (.ncu-repz) is read by Nsight Compute 2026 or newer: open it "
                                   "with that ncu, or export it there and pass the CSV: " +
                                       shell_join(argv) + " > report.csv"
                                 : "check that the file is an Nsight Compute report written by this or an older "
                                   "ncu version: " +
                                       shell_join(argv));
  }
  return tmp_csv;
}

}  // namespace kprof
