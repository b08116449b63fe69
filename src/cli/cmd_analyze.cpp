// kprof analyze REPORT: the bottleneck verdict for an existing Nsight Compute report (.ncu-rep or
// a CSV exported with --page raw), on the same code path as `kprof profile` (analysis/analyze.hpp,
// report/ncu_report.hpp). Needs no GPU; a .ncu-rep needs ncu on PATH.
#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/analyze.hpp"
#include "analysis/hot_lines.hpp"
#include "analysis/report_input.hpp"
#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "report/hot_lines_report.hpp"
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
  size_t top = 10;
  bool sass = false;
};

/// The hot lines of every launch of `in` into the header (or the note why there are none).
void add_hot_lines(const LoadedReport& in, const AnalyzeOptions& o, NcuReportHeader& header) {
  header.show_sass = o.sass;
  header.hot_lines_note = in.source_note;
  if (!in.rep) return;
  HotLinesOptions ho;
  ho.top = o.top;
  for (const auto& k : in.rep->kernels) header.hot_lines[k.id] = hot_lines(k, ho);
}

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
  LoadedReport in;
  NcuAnalysis a;
  try {
    in = load_ncu_report(o.report, o.timeout_s);
    AnalysisContext ctx;
    ctx.rules = in.rep ? std::optional(rule_results_from_rep(*in.rep)) : read_rule_results(o.report, &ctx.rules_note);
    a = analyze_metric_table(in.table, ctx);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.find(o.report) == std::string::npos) what = o.report + ": " + what;  // say which file
    throw Error(e.code(), what, e.hint());
  }
  if (a.table.kernels.empty())
    throw check_failed(o.report + " holds no profiled kernel",
                       "profile at least one kernel launch (check ncu's --kernel-name / --launch-skip "
                       "filters and that the application launched kernels)");

  NcuReportHeader header = header_from_report(a.table, a.verdict, o.report);
  header.rows.emplace_back("Read with", in.reader);
  add_hot_lines(in, o, header);
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
    for (const auto& [id, h] : header.hot_lines)
      if (header.hot_lines.size() == 1 || id == a.verdict.kernels[static_cast<size_t>(std::max(a.verdict.leading, 0))].id)
        std::cout << hot_lines_text(h);
    if (!header.hot_lines_note.empty()) std::cout << "  hot lines: not available: " << header.hot_lines_note << "\n";
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
      "REPORT is a .ncu-rep or a CSV exported with `--page raw` (with or without --print-units base).\n"
      "A .ncu-rep is read through Nsight Compute's Python module ncu_report (ncu's extras/python, or\n"
      "`pip install ncu-report`; $KPROF_NCU_REPORT names another folder, =off turns it off): metrics,\n"
      "ncu's own rule results and the hot lines (source lines by share of warp samples, with their stalls\n"
      "and memory waste). Without ncu_report it is exported with `ncu --import REPORT --csv --page raw\n"
      "--print-units base` (metrics only). A CSV's rule results are read from REPORT.rules.json beside it.\n"
      "Writes DIR/ncu_summary.md, DIR/ncu_details.md and DIR/roofline.svg/.png and prints the verdict per\n"
      "kernel.\n"
      "Exit codes: 0 verdict produced; 1 no kernels or no usable metrics; 2 bad input.");
  sub->add_option("REPORT", opts->report, "ncu report: .ncu-rep, or a raw-page CSV export")->required();
  sub->add_option("--output-dir,-o", opts->output_dir, "folder for ncu_summary.md, ncu_details.md (and analysis.json)")
      ->capture_default_str();
  sub->add_flag("--json", opts->json, "print the verdict as JSON on stdout and write DIR/analysis.json");
  sub->add_option("--top", opts->top, "hot lines to show per kernel")->capture_default_str()->check(CLI::Range(1, 1000));
  sub->add_flag("--sass", opts->sass, "list the SASS instructions behind each hot line in ncu_summary.md");
  sub->add_flag("--no-roofline", opts->no_roofline, "do not draw DIR/roofline.svg/.png (matplotlib in kprof's Python)");
  sub->add_option("--timeout", opts->timeout_s, "seconds allowed for ncu to export a .ncu-rep")
      ->capture_default_str()
      ->check(positive_number());
  sub->callback([opts, &action] { action = [opts] { return run_analyze(*opts); }; });
}

}  // namespace kprof
