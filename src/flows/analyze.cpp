// kprof analyze REPORT: the bottleneck verdict for an existing Nsight Compute report (.ncu-rep,
// .ncu-repz or a CSV exported with --page raw), on the same code path as `kprof profile`
// (stages/analysis/analyze.hpp, report/ncu_report.hpp). Needs no GPU. A .ncu-rep is read through
// ncu_report when it imports (metrics, rules, hot lines), else exported through ncu; every CSV is
// streamed one launch at a time (stages/analysis/analyze_stream.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "stages/analysis/analyze.hpp"
#include "core/outcome.hpp"
#include "core/json_text.hpp"
#include "stages/analysis/analyze_stream.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/analysis/ncu_rules.hpp"
#include "stages/analysis/report_input.hpp"
#include "stages/ncu/metrics.hpp"
#include "core/trace.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/input_file.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "flows/ceiling_cache.hpp"
#include "flows/report_files.hpp"
#include "flows/analyze.hpp"
#include "report/hot_lines_report.hpp"
#include "report/html_pages.hpp"
#include "report/ncu_report.hpp"
#include "report/roofline_chart.hpp"

namespace kprof {

namespace {

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

/// The hot lines of every launch of `in` into the header (or `note`: why there are none).
void add_hot_lines(const std::optional<LoadedReport>& in, const std::string& note, const AnalyzeOptions& o,
                   NcuReportHeader& header) {
  header.show_sass = o.sass;
  header.hot_lines_note = in ? "" : note;
  if (!in) return;
  HotLinesOptions ho;
  ho.top = o.top;
  for (const auto& k : in->rep.kernels) header.hot_lines[k.id] = hot_lines_of_report(in->rep, k, ho);
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

/// The report analysed: through ncu_report when `in` holds it, else exported through ncu (a
/// .ncu-rep or .ncu-repz) and streamed, or streamed as the CSV it is. `reader` says which.
StreamedAnalysis analyze_input(const AnalyzeOptions& o, const std::optional<LoadedReport>& in, std::string& reader) {
  AnalysisContext ctx;
  ctx.known_gpus = known_gpu_ceilings();  // this machine's cache, then the values committed for known GPUs
  if (in) {
    ctx.rules = rule_results_from_rep(in->rep);
    reader = in->reader;
    StreamedAnalysis sa;
    sa.kept = analyze_metric_table(in->table, ctx);
    sa.launches = sa.kept.table.kernels.size();
    sa.invalid_values = sa.kept.invalid_values.size();
    for (size_t i = 0; i < sa.kept.invalid_values.size() && i < 5; ++i)
      sa.invalid_examples.push_back(sa.kept.invalid_values[i]);
    return sa;
  }
  TempFile tmp{
      (std::filesystem::temp_directory_path() / ("kprof-analyze-" + std::to_string(::getpid()) + ".csv")).string()};
  std::string csv = ncu_export_csv_file(o.report, tmp.path, o.timeout_s);
  if (csv != tmp.path) tmp.path.clear();
  reader = csv == o.report ? "CSV export" : "ncu --import (CSV)";
  ctx.rules = read_rule_results(o.report, &ctx.rules_note);
  return analyze_ncu_file(csv, kMaxDetailedKernels, show_progress, ctx);
}

}  // namespace

int run_analyze(const AnalyzeOptions& given) {
  if (auto why = output_dir_problem(given.output_dir); !why.empty())
    throw usage_error("-o " + given.output_dir + ": " + why, "give a folder for the reports (created when missing)");
  // Bounded: a device is refused, a FIFO or pipe is copied with a deadline, a file above the limit
  // is refused (core/input_file.hpp); `o.report` is then the file read.
  const std::string ext = std::filesystem::path(given.report).extension().string();
  ReportInput input = prepare_report_input(given.report, ext == ".csv" || ext == ".ncu-rep" ? ext : ".csv");
  AnalyzeOptions o = given;
  o.report = input.path;
  std::string source_note, reader;
  StreamedAnalysis sa;
  std::optional<LoadedReport> in;
  try {
    trace_event("analyze: report read start");
    in = load_with_ncu_report(o.report, &source_note);
    trace_event("analyze: report read end");
    if (!in && ends_with(o.report, ".ncu-rep") && find_on_path("ncu").empty() && path_exists(o.report))
      throw usage_error("reading " + o.report +
                            " needs Nsight Compute's Python module ncu_report or its ncu "
                            "executable; neither was found (" +
                            source_note + ")",
                        ncu_report_install_hint() +
                            "; or add ncu to PATH, or export the report where ncu is "
                            "installed and pass the CSV: " +
                            shell_join(ncu_export_argv("ncu", o.report)));
    sa = analyze_input(o, in, reader);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.find(o.report) == std::string::npos && what.find(given.report) == std::string::npos)
      what = given.report + ": " + what;  // say which file
    throw Error(e.code(), what, e.hint());
  }
  const NcuAnalysis& a = sa.kept;
  if (a.table.kernels.empty())
    throw check_failed(given.report + " holds no profiled kernel",
                       "profile at least one kernel launch (check ncu's --kernel-name / --launch-skip "
                       "filters and that the application launched kernels); an export cut short after its "
                       "header is exported again");

  NcuReportHeader header = header_from_report(a.table, a.verdict, given.report);
  header.rows.emplace_back("Read with", reader);
  add_hot_lines(in, source_note, o, header);
  if (sa.others.launches > 0) {
    const auto& lead = a.table.kernels.at(static_cast<size_t>(a.verdict.leading));
    header.rows.at(0).second = fmt::format(
        "{} (leads; {} launches in the report, the {} with the most GPU time shown "
        "in full)",
        lead.name, sa.launches, a.table.kernels.size());
    header.streamed = &sa;
  }
  NcuReportFiles files = write_ncu_reports(o.output_dir, a.table, a.verdict, header);
  nlohmann::json j = ncu_json(a.table, a.verdict, header);
  j["source"] = given.report;
  if (sa.others.launches > 0)
    j["other_launches"] = {
        {"launches", sa.others.launches}, {"gpu_time_ns", sa.others.gpu_time_ns}, {"launches_in_report", sa.launches}};
  if (sa.invalid_values > 0) j["impossible_values"] = {{"count", sa.invalid_values}, {"examples", sa.invalid_examples}};
  std::string json_path = join_path(o.output_dir, "analysis.json");
  if (!o.no_html) j["report_html"] = join_path(o.output_dir, "report.html");
  if (o.json) {
    const std::string text = json_text(j) + "\n";
    write_file_atomic(json_path, text);
    note_report(json_path, text);
  }
  if (!o.no_html) {
    HtmlOptions ho;
    ho.include_source = !o.html_no_source;
    write_html_page(o.output_dir, ncu_page("kprof analyze: " + o.report, j, nullptr, ho));
  }

  if (!has_usable_metrics(a)) {
    if (sa.invalid_values > 0)
      throw usage_error(
          fmt::format("{}: no kernel can be classified: its Speed of Light values are impossible ({} "
                      "impossible value(s), e.g. {})",
                      given.report, sa.invalid_values, sa.invalid_examples.front()),
          "the export is damaged or edited: export it again from the .ncu-rep; what it holds is listed in " +
              files.details);
    throw check_failed(fmt::format("{}: no kernel has the Speed of Light metrics kprof classifies with ({} and {})",
                                   given.report, metric::kSmSol, metric::kMemSol),
                       "collect them, e.g. ncu --section SpeedOfLight --section Occupancy "
                       "--section LaunchStats ... (or --set full); what the report holds is listed in " +
                           files.details);
  }
  if (sa.invalid_values > 0)
    print_warning(fmt::format("{}: {} impossible value(s) ignored, e.g. {}", given.report, sa.invalid_values,
                              sa.invalid_examples.front()));

  std::string chart;
  if (!o.no_roofline) {
    trace_event("analyze: chart start");
    std::string note = analyze_roofline(o.output_dir, a);
    trace_event("analyze: chart end");
    if (note.empty())
      chart = ", " + join_path(o.output_dir, "roofline.svg");
    else
      print_warning(note);
  }
  if (o.json) {
    std::cout << json_text(j) << "\n";
  } else {
    std::cout << verdict_text(a.verdict);
    for (const auto& [id, h] : header.hot_lines)
      if (header.hot_lines.size() == 1 ||
          id == a.verdict.kernels[static_cast<size_t>(std::max(a.verdict.leading, 0))].id)
        std::cout << hot_lines_text(h);
    if (!header.hot_lines_note.empty()) std::cout << "  hot lines: not available: " << header.hot_lines_note << "\n";
    if (sa.others.launches > 0)
      std::cout << fmt::format(
          "({} more launches with less GPU time are summed up under \"Launches not shown in "
          "full\" in ncu_summary.md and ncu_details.md)\n",
          sa.others.launches);
  }
  print_progress("wrote " + files.summary + ", " + files.details + chart + (o.json ? ", " + json_path : std::string()) +
                 (o.no_html ? std::string() : ", " + join_path(o.output_dir, "report.html")));
  return static_cast<int>(ExitCode::Ok);
}

NcuAnalysis read_report_analysis(const std::string& path, double timeout_s) {
  AnalyzeOptions o;
  o.report = path;
  o.timeout_s = timeout_s;
  std::string note, reader;
  std::optional<LoadedReport> in = load_with_ncu_report(path, &note);
  if (!in && ends_with(path, ".ncu-rep") && find_on_path("ncu").empty() && path_exists(path))
    throw usage_error("reading " + path +
                          " needs Nsight Compute's Python module ncu_report or its ncu executable; "
                          "neither was found (" +
                          note + ")",
                      ncu_report_install_hint() +
                          "; or compare the reports' CSV exports: " + shell_join(ncu_export_argv("ncu", path)));
  return analyze_input(o, in, reader).kept;
}

}  // namespace kprof
