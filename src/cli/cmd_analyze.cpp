// kprof analyze REPORT: the bottleneck verdict for an existing Nsight Compute report (.ncu-rep or
// a CSV exported with --page raw), on the same code path as `kprof profile` (analysis/analyze.hpp,
// report/ncu_report.hpp). Needs no GPU; a .ncu-rep needs ncu on PATH.
#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/analyze.hpp"
#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "report/ncu_report.hpp"
#include "report/roofline_chart.hpp"

namespace kprof {

namespace {

struct AnalyzeOptions {
  std::string report;
  std::string output_dir = "analyze_out";
  bool json = false;
  bool no_roofline = false;
  double timeout_s = 300.0;
};

/// roofline.svg of an analysed report: every launch shown in detail (no bound: a report alone
/// does not record the buffers). Returns the note printed when it is not written.
std::string analyze_roofline(const std::string& dir, const NcuAnalysis& a) {
  if (!a.verdict.ceilings) return "roofline not drawn: no kernel was classified";
  std::vector<RooflineEntry> entries;
  for (size_t i : kernels_to_detail(a.verdict))
    entries.push_back({display_kernel_name(a.table.kernels[i].name), &a.table.kernels[i], std::nullopt, std::nullopt});
  return write_roofline(dir, roofline_spec(entries, *a.verdict.ceilings, "kprof roofline"));
}

int run_analyze(const AnalyzeOptions& o) {
  std::string csv = read_ncu_export(o.report, o.timeout_s);
  AnalysisContext ctx;
  ctx.rules = read_rule_results(o.report, &ctx.rules_note);
  NcuAnalysis a;
  try {
    a = analyze_ncu_csv(csv, ctx);
  } catch (const Error& e) {
    throw Error(e.code(), o.report + ": " + e.what(), e.hint());
  }
  if (a.table.kernels.empty())
    throw check_failed(o.report + " holds no profiled kernel",
                       "profile at least one kernel launch (check ncu's --kernel-name / --launch-skip "
                       "filters and that the application launched kernels)");

  NcuReportHeader header = header_from_report(a.table, a.verdict, o.report);
  NcuReportFiles files = write_ncu_reports(o.output_dir, a.table, a.verdict, header);
  nlohmann::json j = ncu_json(a.table, a.verdict, header);
  j["source"] = o.report;
  std::string json_path = join_path(o.output_dir, "analysis.json");
  if (o.json) write_file_atomic(json_path, j.dump(2) + "\n");

  if (!has_usable_metrics(a))
    throw check_failed(o.report + ": no kernel has the Speed of Light metrics kprof classifies with "
                                  "(sm__throughput.avg.pct_of_peak_sustained_elapsed and "
                                  "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed)",
                       "collect them, e.g. ncu --section SpeedOfLight --section Occupancy "
                       "--section LaunchStats ... (or --set full); what the report holds is listed in " +
                           files.details);

  std::string chart;
  if (!o.no_roofline) {
    std::string note = analyze_roofline(o.output_dir, a);
    if (note.empty()) chart = ", " + join_path(o.output_dir, "roofline.svg");
    else print_warning(note);
  }
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << verdict_text(a.verdict);
  }
  print_progress("wrote " + files.summary + ", " + files.details + chart +
                 (o.json ? ", " + json_path : std::string()));
  return static_cast<int>(ExitCode::Ok);
}

}  // namespace

void register_analyze(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand("analyze", "Bottleneck verdict for an existing ncu report (.ncu-rep or raw CSV), no GPU needed");
  sub->footer("Bottleneck verdict for an existing Nsight Compute report, without a GPU.\n"
      "REPORT is a .ncu-rep (read through `ncu --import REPORT --csv --page raw --print-units base`;\n"
      "needs ncu on PATH) or a CSV exported with `--page raw` (with or without --print-units base).\n"
      "Writes DIR/ncu_summary.md, DIR/ncu_details.md and DIR/roofline.svg/.png and prints the verdict\n"
      "per kernel. ncu's own rule results are shown when the report holds them (a CSV: REPORT.rules.json\n"
      "beside it).\n"
      "Exit codes: 0 verdict produced; 1 no kernels or no usable metrics; 2 bad input.");
  sub->add_option("REPORT", opts->report, "ncu report: .ncu-rep, or a raw-page CSV export")->required();
  sub->add_option("--output-dir,-o", opts->output_dir, "folder for ncu_summary.md, ncu_details.md (and analysis.json)")
      ->capture_default_str();
  sub->add_flag("--json", opts->json, "print the verdict as JSON on stdout and write DIR/analysis.json");
  sub->add_flag("--no-roofline", opts->no_roofline, "do not draw DIR/roofline.svg/.png (matplotlib in kprof's Python)");
  sub->add_option("--timeout", opts->timeout_s, "seconds allowed for ncu to export a .ncu-rep")
      ->capture_default_str()
      ->check(positive_number());
  sub->callback([opts, &action] { action = [opts] { return run_analyze(*opts); }; });
}

}  // namespace kprof
