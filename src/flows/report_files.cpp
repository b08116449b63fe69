#include "flows/report_files.hpp"
#include "core/json_text.hpp"

#include "core/outcome.hpp"
#include "core/fs.hpp"

namespace kprof {

void write_env_reports(const EnvReport& r, const std::string& md_path) {
  write_file_atomic(md_path, env_markdown(r));
  const std::string env_text = json_text(env_json(r)) + "\n";
  write_file_atomic(json_path_for(md_path), env_text);
  note_report(json_path_for(md_path), env_text);
}

void write_correctness_reports(const std::string& dir, const CheckResult& r, const HeaderRows& header) {
  write_file_atomic(join_path(dir, "correctness.md"), correctness_markdown(r, header));
  const std::string text = json_text(correctness_json(r, header)) + "\n";
  write_file_atomic(join_path(dir, "correctness.json"), text);
  note_report(join_path(dir, "correctness.json"), text);
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
