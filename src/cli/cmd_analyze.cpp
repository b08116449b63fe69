// kprof analyze REPORT: the bottleneck verdict for an existing Nsight Compute report (.ncu-rep or
// a CSV exported with --page raw), on the same code path as `kprof profile` (analysis/analyze.hpp,
// report/ncu_report.hpp). Needs no GPU; a .ncu-rep needs ncu on PATH.
#include <cstdio>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "analysis/analyze.hpp"
#include "analysis/analyze_stream.hpp"
#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "report/ncu_report.hpp"

namespace kprof {

namespace {

struct AnalyzeOptions {
  std::string report;
  std::string output_dir = "analyze_out";
  bool json = false;
  double timeout_s = 300.0;
};

/// Removes a temporary export when analyze leaves, whatever the way out.
struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty()) std::remove(path.c_str());
  }
};

/// "12.3 MB" of `total` bytes, for progress lines.
void show_progress(size_t launches, uint64_t bytes, uint64_t total) {
  print_progress(fmt::format("analyze: {} launches read ({} of {})", launches, fmt_bytes(static_cast<double>(bytes)),
                             fmt_bytes(static_cast<double>(total))));
}

int run_analyze(const AnalyzeOptions& o) {
  if (auto why = output_dir_problem(o.output_dir); !why.empty())
    throw usage_error("-o " + o.output_dir + ": " + why, "give a folder for the reports (created when missing)");
  TempFile tmp{(std::filesystem::temp_directory_path() / ("kprof-analyze-" + std::to_string(::getpid()) + ".csv")).string()};
  std::string csv = ncu_export_csv_file(o.report, tmp.path, o.timeout_s);
  if (csv != tmp.path) tmp.path.clear();
  StreamedAnalysis sa;
  try {
    sa = analyze_ncu_file(csv, kMaxDetailedKernels, show_progress);
  } catch (const Error& e) {
    throw Error(e.code(), o.report + ": " + e.what(), e.hint());
  }
  const NcuAnalysis& a = sa.kept;
  if (a.table.kernels.empty())
    throw check_failed(o.report + " holds no profiled kernel",
                       "profile at least one kernel launch (check ncu's --kernel-name / --launch-skip "
                       "filters and that the application launched kernels)");

  NcuReportHeader header = header_from_report(a.table, a.verdict, o.report);
  if (sa.others.launches > 0) {
    const auto& lead = a.table.kernels.at(static_cast<size_t>(a.verdict.leading));
    header.rows.at(0).second = fmt::format("{} (leads; {} launches in the report, the {} with the most GPU time shown "
                                           "in full)", lead.name, sa.launches, a.table.kernels.size());
    header.timing_markdown = other_launches_markdown(sa);
  }
  NcuReportFiles files = write_ncu_reports(o.output_dir, a.table, a.verdict, header);
  nlohmann::json j = ncu_json(a.table, a.verdict, header);
  j["source"] = o.report;
  if (sa.others.launches > 0)
    j["other_launches"] = {{"launches", sa.others.launches}, {"gpu_time_ns", sa.others.gpu_time_ns},
                           {"launches_in_report", sa.launches}};
  if (sa.invalid_values > 0) j["impossible_values"] = {{"count", sa.invalid_values}, {"examples", sa.invalid_examples}};
  std::string json_path = join_path(o.output_dir, "analysis.json");
  if (o.json) write_file_atomic(json_path, j.dump(2) + "\n");

  if (!has_usable_metrics(a)) {
    if (sa.invalid_values > 0)
      throw usage_error(fmt::format("{}: no kernel can be classified: its Speed of Light values are impossible ({} "
                                    "impossible value(s), e.g. {})",
                                    o.report, sa.invalid_values, sa.invalid_examples.front()),
                        "the export is damaged or edited: export it again from the .ncu-rep; what it holds is listed in " +
                            files.details);
    throw check_failed(o.report + ": no kernel has the Speed of Light metrics kprof classifies with "
                                  "(sm__throughput.avg.pct_of_peak_sustained_elapsed and "
                                  "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed)",
                       "collect them, e.g. ncu --section SpeedOfLight --section Occupancy "
                       "--section LaunchStats ... (or --set full); what the report holds is listed in " +
                           files.details);
  }
  if (sa.invalid_values > 0)
    print_warning(fmt::format("{}: {} impossible value(s) ignored, e.g. {}", o.report, sa.invalid_values,
                              sa.invalid_examples.front()));

  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << verdict_text(a.verdict);
    if (sa.others.launches > 0)
      std::cout << fmt::format("({} more launches with less GPU time are summed up under \"Launches not shown in "
                               "full\" in ncu_summary.md and ncu_details.md)\n",
                               sa.others.launches);
  }
  print_progress("wrote " + files.summary + ", " + files.details +
                 (o.json ? ", " + json_path : std::string()));
  return static_cast<int>(ExitCode::Ok);
}

}  // namespace

void register_analyze(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand("analyze", "Bottleneck verdict for an existing ncu report (.ncu-rep or raw CSV), no GPU needed");
  sub->footer("Bottleneck verdict for an existing Nsight Compute report, without a GPU.\n"
      "REPORT is a .ncu-rep or .ncu-repz (read through `ncu --import REPORT --csv --page raw --print-units base`;\n"
      "needs ncu on PATH; .ncu-repz needs Nsight Compute 2026 or newer) or a CSV exported with `--page raw`\n"
      "(with or without --print-units base; ncu's units row is required). Read one launch at a time: a large\n"
      "export shows in full the launches with the most GPU time and sums up the others.\n"
      "Writes DIR/ncu_summary.md and DIR/ncu_details.md and prints the verdict per kernel.\n"
      "Exit codes: 0 verdict produced; 1 no kernels or no usable metrics; 2 bad input (also impossible values).");
  sub->add_option("REPORT", opts->report, "ncu report: .ncu-rep / .ncu-repz, or a raw-page CSV export")->required();
  sub->add_option("--output-dir,-o", opts->output_dir, "folder for ncu_summary.md, ncu_details.md (and analysis.json)")
      ->capture_default_str();
  sub->add_flag("--json", opts->json, "print the verdict as JSON on stdout and write DIR/analysis.json");
  sub->add_option("--timeout", opts->timeout_s, "seconds allowed for ncu to export a .ncu-rep")
      ->capture_default_str()
      ->check(positive_number());
  sub->callback([opts, &action] { action = [opts] { return run_analyze(*opts); }; });
}

}  // namespace kprof
