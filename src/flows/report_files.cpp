#include "flows/report_files.hpp"
#include "core/json_text.hpp"

#include "core/outcome.hpp"
#include "core/fs.hpp"
#include "core/trace.hpp"
#include "report/html_pages.hpp"

namespace kprof {

void write_env_reports(const EnvReport& r, const std::string& md_path, bool html) {
  write_file_atomic(md_path, env_markdown(r));
  const nlohmann::json j = env_json(r);
  const std::string env_text = json_text(j) + "\n";
  write_file_atomic(json_path_for(md_path), env_text);
  note_report(json_path_for(md_path), env_text);
  if (html) {
    std::string json_path = json_path_for(md_path);
    write_file_atomic(json_path.substr(0, json_path.size() - 5) + ".html", env_page(j));
  }
}

std::string write_check_page(const std::string& dir, const CheckResult& r, const HeaderRows& header) {
  return write_html_page(dir, check_page(correctness_json(r, header)));
}

void write_correctness_reports(const std::string& dir, const CheckResult& r, const HeaderRows& header) {
  write_file_atomic(join_path(dir, "correctness.md"), correctness_markdown(r, header));
  const std::string text = json_text(correctness_json(r, header)) + "\n";
  write_file_atomic(join_path(dir, "correctness.json"), text);
  note_report(join_path(dir, "correctness.json"), text);
}

std::string write_html_page(const std::string& dir, const std::string& html, const std::string& name) {
  trace_event("html: write " + name);
  std::string path = join_path(dir, name);
  write_file_atomic(path, html);
  return path;
}

NcuReportFiles write_ncu_reports(const std::string& dir, const MetricTable& table, const CallVerdict& call,
                                 const NcuReportHeader& header) {
  make_dirs(dir);
  NcuReportFiles files{join_path(dir, "ncu_summary.md"), join_path(dir, "ncu_details.md")};
  write_file_atomic(files.summary, render_ncu_summary(table, call, header));
  write_file_atomic(files.details, render_ncu_details(table, header));
  return files;
}

void write_unclassified_reports(const std::string& dir, const NcuReportHeader& header, const std::string& failure,
                                const std::string& hint, const std::string& ncu_log, const MetricTable* table) {
  write_file_atomic(join_path(dir, "ncu_summary.md"), unclassified_summary(header, failure, hint));
  write_file_atomic(join_path(dir, "ncu_details.md"), unclassified_details(header, ncu_log, table));
}

}  // namespace kprof
