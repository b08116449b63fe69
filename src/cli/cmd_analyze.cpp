// kprof analyze REPORT: the bottleneck verdict for an existing Nsight Compute report (.ncu-rep,
// .ncu-repz or a CSV exported with --page raw), on the same code path as `kprof profile`
// (stages/analysis/analyze.hpp, report/ncu_report.hpp). Needs no GPU. A .ncu-rep is read through
// ncu_report when it imports (metrics, rules, hot lines), else exported through ncu; every CSV is
// streamed one launch at a time (stages/analysis/analyze_stream.hpp).
#include <memory>

#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "flows/analyze.hpp"

namespace kprof {

void register_analyze(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand("analyze",
                                 "Bottleneck verdict for an existing ncu report (.ncu-rep or raw CSV), no GPU needed");
  sub->footer(
      "Bottleneck verdict for an existing Nsight Compute report, without a GPU.\n"
      "REPORT is a .ncu-rep, a .ncu-repz or a CSV exported with `--page raw` (with or without\n"
      "--print-units base; ncu's units row is required). A .ncu-rep is read through Nsight Compute's Python\n"
      "module ncu_report (ncu's extras/python, or `pip install ncu-report`; $KPROF_NCU_REPORT names another\n"
      "folder, =off turns it off): metrics, ncu's own rule results and the hot lines (source lines by share\n"
      "of warp samples, with their stalls and memory waste). Otherwise it is exported with `ncu --import\n"
      "REPORT --csv --page raw --print-units base` (metrics only; .ncu-repz needs Nsight Compute 2026 or\n"
      "newer) and read one launch at a time: a large export shows in full the launches with the most GPU\n"
      "time and sums up the others. A CSV's rule results are read from REPORT.rules.json beside it.\n"
      "Writes DIR/ncu_summary.md, DIR/ncu_details.md and DIR/roofline.svg/.png and prints the verdict per\n"
      "kernel.\n"
      "Exit codes: 0 verdict produced; 1 no kernels or no usable metrics; 2 bad input (also impossible values).");
  sub->add_option("REPORT", opts->report, "ncu report: .ncu-rep / .ncu-repz, or a raw-page CSV export")->required();
  sub->add_option("--output-dir,-o", opts->output_dir, "folder for ncu_summary.md, ncu_details.md (and analysis.json)")
      ->capture_default_str();
  sub->add_flag("--json", opts->json, "print the verdict as JSON on stdout and write DIR/analysis.json");
  sub->add_option("--top", opts->top, "hot lines to show per kernel")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  sub->add_flag("--sass", opts->sass, "list the SASS instructions behind each hot line in ncu_summary.md");
  sub->add_flag("--no-roofline", opts->no_roofline, "do not draw DIR/roofline.svg/.png (matplotlib in kprof's Python)");
  sub->add_flag("--no-html", opts->no_html, "do not write DIR/report.html (the self-contained page)");
  sub->add_flag("--html-no-source", opts->html_no_source, "leave source lines and SASS out of DIR/report.html");
  sub->add_option("--timeout", opts->timeout_s, "seconds allowed for ncu to export a .ncu-rep")
      ->capture_default_str()
      ->check(positive_number());
  sub->callback([opts, &action] { action = [opts] { return run_analyze(*opts); }; });
}

}  // namespace kprof
