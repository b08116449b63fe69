// kprof analyze REPORT: the bottleneck verdict for an existing Nsight Compute report (.ncu-rep,
// .ncu-repz or a CSV exported with --page raw), on the same code path as `kprof profile`
// (stages/analysis/analyze.hpp, report/ncu_report.hpp). Needs no GPU. A .ncu-rep is read through
// ncu_report when it imports (metrics, rules, hot lines), else exported through ncu; every CSV is
// streamed one launch at a time (stages/analysis/analyze_stream.hpp).
#include <memory>

#include "api/command_requests.hpp"
#include "cli/commands.hpp"
#include "cli/table_options.hpp"
#include "cli/validators.hpp"
#include "flows/analyze.hpp"

namespace kprof {

void register_analyze(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<api::AnalyzeRequest>();
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
  add_table_option(sub, "analyze", "--output-dir", opts->output_dir);
  add_table_option(sub, "analyze", "--json", opts->json);
  add_table_option(sub, "analyze", "--top", opts->top);
  add_table_option(sub, "analyze", "--sass", opts->sass);
  add_table_option(sub, "analyze", "--no-roofline", opts->no_roofline);
  add_table_option(sub, "analyze", "--no-html", opts->no_html);
  add_table_option(sub, "analyze", "--html-no-source", opts->html_no_source);
  add_table_option(sub, "analyze", "--timeout", opts->export_timeout_s);
  sub->callback([opts, &action] {
    api::validate(*opts);
    action = [opts] {
      AnalyzeOptions a;
      a.report = opts->report;
      a.output_dir = opts->output_dir;
      a.json = opts->json;
      a.no_roofline = opts->no_roofline;
      a.timeout_s = opts->export_timeout_s;
      a.top = opts->top;
      a.sass = opts->sass;
      a.no_html = opts->no_html;
      a.html_no_source = opts->html_no_source;
      return run_analyze(a);
    };
  });
}

}  // namespace kprof
