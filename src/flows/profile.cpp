#include "flows/profile.hpp"
#include "core/host.hpp"
#include "core/json_text.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>

#include <fmt/ranges.h>

#include "api/requests.hpp"
#include "core/outcome.hpp"
#include "core/trace.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "stages/ncu/source_section.hpp"
#include "stages/analysis/ncu_rules.hpp"
#include "flows/assess_context.hpp"
#include "flows/ncu_standby.hpp"
#include "python/chart_pool.hpp"
#include "report/ncu_report.hpp"
#include "report/roofline_chart.hpp"
#include "report/comparison.hpp"
#include "flows/report_files.hpp"
#include "report/profile_json.hpp"
#include "report/html_pages.hpp"
#include "report/timing_report.hpp"

namespace kprof {
namespace {

constexpr const char* kNoSourceNote =
    "source-level data not collected (--no-source); run with --source for the hot lines";

std::string execution_time_row(const TimingResult& t) {
  std::string s =
      fmt::format("{} per call (median of {} CUDA-event timings, CV {:.1f}%{})", fmt_duration_ms(t.call.median),
                  t.call.n, t.call.cv * 100, t.options.l2_flush ? ", L2 flushed" : ", warm L2");
  if (auto k = reported_kernel_time(t))
    s += fmt::format("; {} of kernel time per call ({})", fmt_duration_ms(k->stats->median), k->label);
  return s;
}

/// The kernels CUPTI saw in the timed calls, names shortened for display.
std::vector<std::string> launched_kernel_names(const TimingResult& t) {
  std::vector<std::string> names;
  for (const auto& k : t.kernel.summary.kernels) names.push_back(display_kernel_name(k.name));
  return names;
}

/// The hot lines of `rep`'s launches whose ID is in `ids` (every launch when `ids` is empty) into
/// `out` (per kernel, s.hot_lines_top lines).
void hot_lines_of(const NcuRep& rep, const std::set<int>& ids, const ProfileSettings& s, ProfileOutcome& out) {
  HotLinesOptions ho;
  ho.top = s.hot_lines_top;
  for (const auto& k : rep.kernels)
    if (ids.empty() || ids.count(k.id)) out.hot_lines[k.id] = hot_lines_of_report(rep, k, ho);
  out.hot_lines_reader = rep.module_origin;
}

/// The hot lines of the report ncu wrote, from its one read through ncu_report (`read`), into `out`.
void read_hot_lines(const ProfileSettings& s, const ProfileReportRead& read, ProfileOutcome& out) {
  if (!s.source) {
    out.hot_lines_note = kNoSourceNote;
    return;
  }
  if (!read.unavailable.empty()) {
    out.hot_lines_note = "no ncu_report module could be imported to read " + read.path + " (" + read.unavailable +
                         "): " + ncu_report_install_hint();
    return;
  }
  out.hot_lines_read_s = read.seconds;
  if (!read.rep) {
    out.hot_lines_note = "reading the source counters of the report failed: " + read.error;
    return;
  }
  try {
    hot_lines_of(*read.rep, {}, s, out);
  } catch (const Error& e) {
    out.hot_lines_note = std::string("reading the source counters of the report failed: ") + e.what();
  }
}

/// The ncu run of one profile: kprof's runner on the same kernel, dims and seed.
NcuRunOptions ncu_options(const KernelSpec& spec, const ProfileSettings& s, const std::string& out_dir,
                          const TimingResult& timing) {
  NcuRunOptions no = own_session_ncu_options(spec, s, out_dir);
  no.target = self_command();
  // One request in: the child reads its typed request from this file and parses no words.
  const std::string request_path = join_path(out_dir, "runner_request.json");
  write_file_atomic(request_path, runner_request(spec, timing).dump(1) + "\n");
  no.target.insert(no.target.end(), {"__runner", "--request", request_path});
  if (s.show_progress)
    print_progress(fmt::format("ncu: profiling one call ({} metrics, set '{}', --clock-control none)",
                               no.metrics.size(), s.metric_set));
  return no;
}

/// Sets classified / failure / missing_required from the analysis of a successful ncu run.
void judge_classification(ProfileOutcome& out) {
  for (const auto& k : out.analysis->table.kernels)
    for (const auto& m : missing_required_metrics(k))
      if (std::find(out.missing_required.begin(), out.missing_required.end(), m) == out.missing_required.end())
        out.missing_required.push_back(m);
  if (out.analysis->table.kernels.empty()) {
    out.failure = "the ncu report holds no kernel";
  } else if (!out.missing_required.empty()) {
    out.failure =
        "ncu returned required metrics missing or NaN: " + fmt::format("{}", fmt::join(out.missing_required, ", "));
    out.hint = "this ncu version or GPU may not support them; `ncu --query-metrics` lists what it has";
  } else {
    out.classified = has_usable_metrics(*out.analysis);
    if (!out.classified) out.failure = "no kernel had the Speed of Light metrics needed to classify it";
  }
}

/// Whatever stopped the classification (no counter permission, no kernel in the range, metrics
/// missing), names the kernels that did launch, as CUPTI saw them during timing.
void note_launched_kernels(ProfileOutcome& out) {
  if (out.classified) return;
  auto names = launched_kernel_names(out.timing);
  if (!names.empty())
    out.failure += "; the kernels that did launch (CUPTI, during timing): " + fmt::format("{}", fmt::join(names, ", "));
  else if (out.ncu.failure == NcuFailure::NoKernels)
    out.failure += "; CUPTI saw no kernel during the timed calls either";
}

/// The kernel row of the header ("" when absent), for the chart's title.
std::string title_of(const std::vector<std::pair<std::string, std::string>>& header) {
  for (const auto& [k, v] : header)
    if (k == "Kernel") return v;
  return "";
}

/// roofline.svg of one call: every launch shown in detail, the leading one with the call's bound
/// (started: RooflineJob::note() waits for it).
RooflineJob start_call_roofline(const std::string& dir, const NcuAnalysis& a, const std::string& title) {
  const CallVerdict& call = a.verdict;
  if (!call.ceilings) return RooflineJob::not_drawn("roofline not drawn: no kernel was classified");
  std::vector<RooflineEntry> entries;
  for (size_t i : kernels_to_detail(call)) {
    RooflineEntry e{display_kernel_name(a.table.kernels[i].name), &a.table.kernels[i], std::nullopt, std::nullopt};
    if (static_cast<int>(i) == call.leading && call.bound) {
      e.bound = call.bound;
      e.work = call.work;
    }
    entries.push_back(e);
  }
  return start_roofline(dir, roofline_spec(entries, *call.ceilings, "kprof roofline: " + title));
}

}  // namespace

nlohmann::json runner_request(const KernelSpec& spec, const TimingResult& timing) {
  return api::to_json(api::RunnerRequest{spec, std::clamp(timing.warmup_calls, 3, 20), current_host()});
}

TimingResult time_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& s) {
  trace_event("timing: start " + spec.kernel);
  if (s.show_progress) print_progress("timing: warm-up, then CUDA events per call and CUPTI kernel records");
  TimingOptions topt = s.timing;
  topt.seed = spec.seed;
  topt.prepare = false;  // the caller prepared `inst` (its header rows read the buffers)
  topt.keep_last_outputs = s.expected && !s.expected->empty();
  TimingResult t = measure_timing(inst, topt, spec.gpu);
  if (s.expected) check_last_outputs(t, *s.expected);
  if (s.run_ncu) note_cache_control(t);
  trace_event("timing: end " + spec.kernel);
  if (s.show_progress) print_progress(timing_progress_line(t));
  return t;
}

void profile_own_session(ProfileOutcome& out, const KernelSpec& spec, const ProfileSettings& s,
                         const std::string& out_dir, const WorkModel& work, StandbySession* standby,
                         const std::string* chart_title) {
  NcuRunOptions no = ncu_options(spec, s, out_dir, out.timing);
  if (s.roofline) start_chart_workers(1);  // matplotlib imports while ncu runs
  NcuReportPrewarm warm(s.source);         // and ncu_report (and its disassembler, for the hot lines)
  // The .ncu-rep read once (metrics, source counters for the hot lines, rules for sections|full);
  // ncu exports it to CSV only when that read fails. A successful run always read its report, so
  // `read` is filled when out.ncu.ok().
  ProfileReportRead read;
  no.read_report = [&](const std::string& path) {
    warm.wait();
    trace_event("profile: report read start");
    read = read_profile_report(path, s.source, s.metric_set != "kprof");
    trace_event("profile: report read end");
    return read.rep.has_value();
  };
  if (standby) {
    std::vector<SessionPlanEntry> plan = {{file_stem(spec.kernel), runner_request(spec, out.timing)}};
    out.ncu = standby->release(plan, s.ncu_timeout_s, no.read_report);
    out.ncu.command = ncu_command(no.ncu.empty() ? find_ncu() : no.ncu, no);  // what it stood for, to rerun
    out.ncu.started_in_standby = true;
  } else {
    out.ncu = run_ncu(no);
  }
  if (!out.ncu.ok()) {
    out.failure = out.ncu.message;
    out.hint = out.ncu.hint;
  } else {
    AnalysisContext ctx = profile_context(work, spec, out.timing, read, s.metric_set, out.notes);
    out.analysis = out.ncu.metrics_from_report ? analyze_metric_table(metric_table_from_rep(*read.rep), ctx)
                                               : analyze_ncu_csv(out.ncu.csv, ctx);
    judge_classification(out);
  }
  trace_event("profile: classified");
  note_launched_kernels(out);
  if (out.classified && s.roofline && chart_title)
    out.roofline_job = start_call_roofline(out_dir, *out.analysis, *chart_title);
  if (out.classified) read_hot_lines(s, read, out);
  trace_event("profile: hot lines");
}

void classify_session_rows(ProfileOutcome& out, const KernelSpec& spec, const ProfileSettings& s, const WorkModel& work,
                           MetricTable rows, const SharedReport& shared) {
  std::set<int> ids;
  for (const auto& k : rows.kernels) ids.insert(k.id);
  AnalysisContext ctx = measured_context(work, spec, out.timing, out.notes);
  attach_rules(ctx, s.metric_set, shared.rep, &ids,
               "the session's report could not be read through ncu_report (" + shared.why_not + ")");
  out.analysis = analyze_metric_table(std::move(rows), ctx);
  judge_classification(out);
  note_launched_kernels(out);
}

void session_hot_lines(ProfileOutcome& out, const ProfileSettings& s, const SharedReport& shared) {
  if (!out.classified) return;
  std::set<int> ids;
  for (const auto& k : out.analysis->table.kernels) ids.insert(k.id);
  if (!s.source) {
    out.hot_lines_note = kNoSourceNote;
  } else if (!shared.rep) {
    out.hot_lines_note = "no ncu_report module could read " + out.ncu.report_path + " (" + shared.why_not +
                         "): " + ncu_report_install_hint();
  } else {
    hot_lines_of(*shared.rep, ids, s, out);
    out.hot_lines_read_s = shared.read_s;
  }
}

std::unique_ptr<StandbySession> start_profile_standby(const KernelSpec& spec, const ProfileSettings& s,
                                                      const std::string& out_dir) {
  if (!s.run_ncu || find_ncu().empty()) return nullptr;
  try {
    return StandbySession::for_profile(spec, file_stem(spec.kernel), s, out_dir);
  } catch (const Error& e) {  // ncu then starts after the timing, as without a standby
    print_warning(std::string("ncu: no standby start: ") + e.what());
    return nullptr;
  }
}

ProfileOutcome measure_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& s,
                               const std::string& out_dir, const std::string* chart_title,
                               std::unique_ptr<StandbySession>* early) {
  ProfileOutcome out;
  // ncu and its profiled process start before the timing (a standby session, flows/ncu_standby.hpp):
  // their start-up overlaps the timed calls instead of following them.
  std::unique_ptr<StandbySession> standby = early ? std::move(*early) : start_profile_standby(spec, s, out_dir);
  out.buffers = inst.buffers();
  out.timing = time_profile(inst, spec, s);
  if (!s.run_ncu) {
    skip_ncu(out);
    return out;
  }
  profile_own_session(out, spec, s, out_dir, call_work(inst, spec, s.ref, out.notes), standby.get(), chart_title);
  return out;
}

void skip_ncu(ProfileOutcome& out) {
  out.ncu.failure = NcuFailure::None;
  out.failure = "Nsight Compute was skipped (--no-ncu)";
  out.hint = "run without --no-ncu for the metrics and the bottleneck";
}

void start_profile_chart(const std::string& out_dir, const ProfileSettings& s, ProfileOutcome& out,
                         const std::vector<std::pair<std::string, std::string>>& header) {
  if (!s.roofline || !out.classified || out.roofline_job) return;
  out.roofline_job = start_call_roofline(out_dir, *out.analysis, title_of(header));
}

void write_profile_reports(const std::string& out_dir, const KernelSpec& spec, const ProfileSettings& s,
                           ProfileOutcome& out, std::vector<std::pair<std::string, std::string>> header) {
  header.push_back({"Execution time", execution_time_row(out.timing)});
  if (s.run_ncu && out.ncu.ok() && out.ncu.session_versions > 0)
    header.push_back({"ncu", fmt::format("{} replay passes; one session for {} versions ({:.1f} s); report {}, "
                                         "NVTX range {}",
                                         out.ncu.replay_passes, out.ncu.session_versions, out.ncu.wall_s,
                                         out.ncu.report_path, out.ncu.nvtx_range)});
  else if (s.run_ncu && out.ncu.ok())
    header.push_back({"ncu", fmt::format("{} replay passes, {:.1f} s; report {}", out.ncu.replay_passes, out.ncu.wall_s,
                                         out.ncu.report_path)});
  NcuReportHeader nh;
  nh.rows = header;
  nh.timing = &out.timing;
  if (out.classified) {
    nh.hot_lines = out.hot_lines;
    nh.hot_lines_note = out.hot_lines_note;
    nh.show_sass = s.sass;
    write_ncu_reports(out_dir, out.analysis->table, out.analysis->verdict, nh);
    if (s.roofline) {
      if (!out.roofline_job) start_profile_chart(out_dir, s, out, header);
      trace_event("profile: reports written, waiting for the chart");
      out.roofline_note = out.roofline_job->note();
      trace_event("profile: chart done");
    }
    for (const auto& n : out.notes) print_warning(n);
    if (!out.roofline_note.empty() && s.roofline) print_warning(out.roofline_note);
  } else {
    write_unclassified_reports(out_dir, nh, out.failure, out.hint, out.ncu.log,
                               out.analysis ? &out.analysis->table : nullptr);
  }
  out.json = profile_json(out_dir, spec, s, out, nh);
  if (s.html) out.json["report_html"] = join_path(out_dir, "report.html");
  const std::string text = json_text(out.json) + "\n";
  write_file_atomic(join_path(out_dir, "profile.json"), text);
  note_report(join_path(out_dir, "profile.json"), text);
  if (s.html) {
    HtmlOptions ho;
    ho.include_source = s.html_source;
    write_html_page(out_dir, ncu_page("kprof profile: " + spec.kernel, out.json, nullptr, ho));
  }
}

nlohmann::json profile_json(const std::string& out_dir, const KernelSpec& spec, const ProfileSettings& s,
                            const ProfileOutcome& out, const NcuReportHeader& nh) {
  ProfileJson p;
  p.classified = out.classified && out.analysis;
  if (out.analysis) {
    p.table = &out.analysis->table;
    p.verdict = &out.analysis->verdict;
  }
  p.failure = out.failure;
  p.hint = out.hint;
  p.ncu = &out.ncu;
  p.source_counters = s.run_ncu && s.source;
  p.hot_lines_reader = out.hot_lines_reader;
  p.hot_lines_read_s = out.hot_lines_read_s;
  p.roofline = out.roofline_note.empty() ? join_path(out_dir, "roofline.svg") : out.roofline_note;
  p.notes = out.notes;
  p.summary = profile_summary_row(out_dir, spec, out);
  p.dims = &spec.dims;
  p.seed = spec.seed;
  p.buffers = out.buffers;
  return profile_json(p, nh);
}

VersionRow profile_summary_row(const std::string& out_dir, const KernelSpec& spec, const ProfileOutcome& out) {
  std::vector<VersionRow> rows(1);
  VersionRow& row = rows[0];
  row.name = file_stem(spec.kernel);
  row.kernel = spec.kernel;
  row.folder = out_dir;
  row.status = VersionStatus::Unchecked;
  fill_timing_columns(row, out.timing);
  fill_ncu_columns(row, out.analysis ? &out.analysis->verdict : nullptr, out.analysis ? &out.analysis->table : nullptr,
                   out.classified, out.failure);
  choose_time_basis(rows);
  return row;
}

ProfileOutcome run_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& s,
                           const std::string& out_dir, std::vector<std::pair<std::string, std::string>> header,
                           std::unique_ptr<StandbySession>* standby) {
  make_dirs(out_dir);
  const std::string title = title_of(header);
  ProfileOutcome out = measure_profile(inst, spec, s, out_dir, &title, standby);
  write_profile_reports(out_dir, spec, s, out, std::move(header));
  return out;
}

}  // namespace kprof
