#include "flows/compare_reports.hpp"

#include <cstdio>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/outcome.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "flows/analyze.hpp"
#include "flows/report_files.hpp"
#include "report/html_pages.hpp"
#include "report/report_diff_report.hpp"

namespace kprof {

bool is_ncu_report_path(const std::string& path) {
  std::string p = to_lower(path);
  return ends_with(p, ".ncu-rep") || ends_with(p, ".ncu-repz") || ends_with(p, ".csv");
}

int run_compare_reports(const std::vector<std::string>& paths, std::optional<double> fail_if_slower_pct,
                        const std::string& output_dir, bool html) {
  if (fail_if_slower_pct)
    throw usage_error(
        "--fail-if-slower does not apply to Nsight Compute reports: each holds one profiled call "
        "per side, so a time ratio between them is one sample",
        "gate on timed results instead: kprof compare OLD/comparison.json NEW/comparison.json "
        "--fail-if-slower PCT (from kprof run), or drop --fail-if-slower");
  std::vector<NcuAnalysis> analyses;
  analyses.reserve(paths.size());
  for (const auto& p : paths) {
    print_progress("compare: reading " + p);
    analyses.push_back(read_report_analysis(p, kDefaultExportTimeoutS));
    if (analyses.back().table.kernels.empty())
      throw usage_error(p + " holds no profiled kernel", "compare reports that profiled at least one launch");
  }
  std::vector<LabelledReport> labelled;
  for (size_t i = 0; i < paths.size(); ++i) labelled.push_back({paths[i], &analyses[i]});
  std::vector<ReportDiff> diffs;
  for (size_t i = 1; i < paths.size(); ++i) diffs.push_back(diff_reports(paths[0], analyses[0], paths[i], analyses[i]));
  make_dirs(output_dir);
  nlohmann::json j = report_diff_json(labelled, diffs);
  if (html) j["report_html"] = join_path(output_dir, "report.html");
  write_file_atomic(join_path(output_dir, "comparison.md"), report_diff_markdown(diffs));
  const std::string text = j.dump(2) + "\n";
  write_file_atomic(join_path(output_dir, "comparison.json"), text);
  note_report(join_path(output_dir, "comparison.json"), text);
  if (html) write_html_page(output_dir, report_diff_page(j));
  std::fputs(report_diff_text(diffs).c_str(), stdout);
  std::printf("report: %s\n", join_path(output_dir, "comparison.md").c_str());
  return 0;
}

}  // namespace kprof
