#include "flows/run/run_workflow.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/outcome.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/implementation.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "core/settings.hpp"
#include "device/cuda.hpp"
#include "flows/assess_context.hpp"
#include "flows/report_files.hpp"
#include "report/decision_report.hpp"
#include "report/html_pages.hpp"
#include "kernel/guarded_call.hpp"
#include "kernel/load.hpp"
#include "kernel/kernel_spec.hpp"
#include "python/interpreter.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {

bool RunWorkflow::env_ready() {
  if (ports_.env_wait()) {
    flush_published();
    return true;
  }
  published_.clear();  // nothing of a machine that is not ready is a result
  if (!stopped_) ports_.cancel_builds();
  stopped_ = true;
  out_.exit_code = std::max(out_.exit_code, 1);  // a failed build said before may have made it 2
  return false;
}

bool RunWorkflow::report_build_failures() {
  std::vector<std::pair<std::vector<std::string>, Error>> failed;  // the versions of each distinct message
  std::vector<std::string> no_arch;  // built for the GPU's architecture: the missing GPU is their reason
  for (size_t i = 0; i < req_.versions.size(); ++i) {
    try {
      ports_.wait_build(i);
    } catch (const Error& e) {
      if (req_.versions[i].arch.empty()) {
        no_arch.push_back(names_[i]);
        continue;
      }
      auto same = std::find_if(failed.begin(), failed.end(), [&e](const auto& f) {
        return f.second.what() == std::string(e.what()) && f.second.hint() == e.hint();
      });
      if (same != failed.end())
        same->first.push_back(names_[i]);
      else
        failed.push_back({{names_[i]}, e});
    }
  }
  for (const auto& [names, e] : failed) {
    print_error(fmt::format("[{}] {}", fmt::join(names, ", "), e.what()), e.hint());
    out_.exit_code = std::max(out_.exit_code, static_cast<int>(e.code()));
  }
  if (!no_arch.empty())  // the environment's blockers (exit 1) say what is missing; this says what else to do
    print_progress(
        fmt::format("[{}] not built: no GPU to take the architecture from; pass --arch (e.g. --arch "
                    "sm_90) to see compile errors on a machine without a GPU",
                    fmt::join(no_arch, ", ")));
  return !failed.empty();
}

void RunWorkflow::publish(std::function<void()> fn) {
  if (!published_.empty() || results_wait_for_env()) {
    published_.push_back(std::move(fn));
    if (ports_.env_done()) env_ready();  // it passed meanwhile: flush in order
    return;
  }
  fn();
}

void RunWorkflow::say(std::string line) {
  publish([line = std::move(line)] { print_progress(line); });
}

void RunWorkflow::flush_published() {
  auto queue = std::move(published_);
  published_.clear();
  for (auto& f : queue) f();
}

void RunWorkflow::run_versions() {
  const size_t n = req_.versions.size();
  size_t i = 0;
  for (; i < n; ++i) {
    if (!deferred_.empty() && ports_.reference_ready()) check_deferred();
    if (stopped_) return;
    if (!why_stop_.empty()) break;
    VersionRow r = run_version(i);
    if (stopped_) return;  // the environment is not ready: no row is a result
    out_.rows.push_back(std::move(r));
    note_stop(out_.rows.back().name);
    if (!why_stop_.empty()) {
      ++i;
      break;
    }
  }
  check_deferred();
  if (stopped_) return;
  for (; i < n; ++i) {
    VersionRow r = new_row(req_, names_, i);
    r.status = VersionStatus::NotRun;
    r.status_reason = why_stop_;
    out_.rows.push_back(r);
  }
}

void RunWorkflow::write_comparison() {
  std::string basis = choose_time_basis(out_.rows);
  out_.comparison = compare_versions(out_.rows);
  if (out_.decision)  // vs first from the interleaved rounds, never from the versions' blocks
    apply_round_verdicts(out_.rows, rounds_arm_of_row_, *out_.decision, rounds_ ? &*rounds_ : nullptr, out_.comparison);
  std::string md = comparison_markdown(out_.rows, out_.comparison, header_, basis);
  nlohmann::json cj = comparison_json(out_.rows, out_.comparison, header_, basis);
  if (out_.decision) {
    md += decision_markdown(*out_.decision);
    cj["decision"] = decision_json(*out_.decision);
  }
  write_file_atomic(join_path(req_.output_dir, "comparison.md"), md);
  if (req_.profile.roofline && req_.profile.run_ncu) {
    if (!run_chart_) {
      std::vector<std::pair<std::string, const NcuAnalysis*>> done;
      for (const auto& [name, a] : profiled_) done.emplace_back(name, &a);
      run_chart_ = start_versions_roofline(req_.output_dir, done);
    }
    std::string note = run_chart_->note();
    cj["roofline"] = note.empty() ? nlohmann::json(join_path(req_.output_dir, "roofline.svg")) : nlohmann::json(note);
    if (!note.empty()) print_warning(note);
  }
  if (req_.profile.html) cj["report_html"] = join_path(req_.output_dir, "report.html");
  cj["trace"] = write_run_trace();
  const std::string text = json_text(cj) + "\n";
  write_file_atomic(join_path(req_.output_dir, "comparison.json"), text);
  note_report(join_path(req_.output_dir, "comparison.json"), text);
  if (req_.profile.html) {
    HtmlOptions ho;
    ho.include_source = req_.profile.html_source;
    write_html_page(req_.output_dir, run_page(cj, profile_docs_, ho));
  }
}

std::string RunWorkflow::write_run_trace() {
  const std::string& kt = settings().trace_path;
  std::string kprof_trace = !kt.empty() && path_exists(kt) ? read_file(kt) : std::string();
  TraceRounds tr{trace_rounds_ ? &*trace_rounds_ : nullptr, trace_arms_,
                 static_cast<size_t>(std::max(0, req_.decide.rounds.calls_per_slot))};
  std::string path = join_path(req_.output_dir, "trace.json");
  write_file_atomic(path, json_text(run_trace_json(trace_timings_, tr, kprof_trace), -1) + "\n");
  return path;
}

VersionRow RunWorkflow::run_version(size_t i) {
  KernelSpec spec = req_.versions[i];
  VersionRow row = new_row(req_, names_, i);
  auto t0 = Clock::now();
  if (!step(row, "build", t0, [&] { wait_build(i, spec, row); })) return row;
  t0 = Clock::now();
  std::unique_ptr<KernelInstance> inst;
  if (!step(row, "load", t0, [&] {
        import_shared_python(spec, row);
        t0 = Clock::now();
        inst = ports_.load(spec);
      }))
    return row;
  row.steps_s["load"] = seconds_since(t0);
  if (may_time_before_check(*inst)) {
    time_before_check(spec, std::move(inst), row);
    return row;
  }
  if (!deferred_.empty()) check_deferred();  // the versions timed before their checks are checked first
  if (stopped_) return row;
  if (!why_stop_.empty()) {
    row.status = VersionStatus::NotRun;
    row.status_reason = why_stop_;
    return row;
  }
  t0 = Clock::now();
  bool correct = false;
  if (!step(row, "check", t0, [&] { correct = check_version(spec, *inst, row, t0); })) return row;
  if (!correct) return row;
  ports_.wait_all_builds();  // no nvcc on the CPU while calls are timed or ncu runs
  if (rounds_wanted() && i == 0) load_aa_instance(spec);
  if (req_.decide.enabled && !req_.decide.ncu) {  // timed in the rounds only (decide_rounds)
    keep_for_decision(std::move(inst));
    return row;
  }
  t0 = Clock::now();
  step(row, "profile", t0, [&] { profile_version(spec, *inst, row, t0); });
  row.steps_s["profile"] = seconds_since(t0);
  if (rounds_wanted() && row.correct()) keep_for_decision(std::move(inst));  // the timing's integrity passed
  return row;
}

void RunWorkflow::import_shared_python(const KernelSpec& spec, VersionRow& row) {
  std::vector<std::string> names;
  const auto t0 = Clock::now();
  for (const auto& m : shared_python_modules(spec_implementation(spec))) {
    if (!python_imported_.insert(m).second) continue;
    trace_event("python: import " + m);
    if (ports_.import_python(m).empty()) names.push_back(m);  // a failure: the load says what is wrong
  }
  if (names.empty()) return;
  row.steps_s["python import"] = seconds_since(t0);
  print_progress(
      fmt::format("[{}] Python packages for the run: {} imported ({:.1f} s; ref.py and the later versions "
                  "share them)",
                  row.name, fmt::join(names, ", "), row.steps_s["python import"]));
}

void RunWorkflow::wait_build(size_t i, KernelSpec& spec, VersionRow& row) {
  const VersionBuild& b = ports_.wait_build(i);  // rethrows a failed build's Error: the row's LoadError
  if (!b.needed || !b.result) return;
  row.build = build_how_text(*b.result);
  row.steps_s["build"] = b.wall_s;
  spec.build = false;
}

bool RunWorkflow::step(VersionRow& row, const std::string& name, Clock::time_point t0,
                       const std::function<void()>& fn) {
  try {
    fn();
    return true;
  } catch (const Error& e) {
    // A build's error (nvcc's messages) is the user's own: said before the environment's verdict.
    if (name == "build") {
      row.status = VersionStatus::LoadError;
      row.status_reason = one_line_summary(e.what());
      print_error(fmt::format("[{}] {}", row.name, e.what()), e.hint());
      out_.exit_code = std::max(out_.exit_code, static_cast<int>(e.code()));
      env_ready();  // a machine that is not ready stops the run here (its blockers are printed)
      return false;
    }
    if (!env_ready()) return false;  // a machine that is not ready explains the failure: its blockers are printed
    if (name == "profile") {
      row.profile = ProfileStatus::NotClassified;
      row.profile_reason = one_line_summary(e.what());
    } else {
      row.status = name == "check" ? VersionStatus::CheckError : VersionStatus::LoadError;  // build, load
      row.status_reason = one_line_summary(e.what());
    }
    step_line(row.name, name, "ERROR", t0);
    print_error(fmt::format("[{}] {}", row.name, e.what()), e.hint());
    out_.exit_code = std::max(out_.exit_code, static_cast<int>(e.code()));
    return false;
  }
}

void RunWorkflow::note_buffers(const KernelSpec& spec, const KernelInstance& inst, VersionRow& row) {
  std::vector<std::pair<std::string, std::string>> buffers;  // name, "f32 x 1024"
  for (const auto& b : inst.buffers())
    buffers.push_back({b.name, fmt::format("{} x {}", dtype_name(b.dtype), b.count)});
  if (header_.empty()) {
    header_ = {{"GPU", gpu_description(spec.gpu)},
               {"Dimensions", spec.dims.to_string().empty() ? "(none)" : spec.dims.to_string()},
               {"Seed", std::to_string(spec.seed)},
               {"Reference", req_.ref}};
    for (const auto& [name, what] : buffers) header_.push_back({"Buffer " + name, what});
    first_buffers_ = buffers;
  } else if (buffers != first_buffers_) {
    // Same options for every version, so only a different solve signature gets here.
    row.note = "its buffers differ from the first version's (" + buffer_list(buffers) + " against " +
               buffer_list(first_buffers_) + "): the times compare different work";
    print_progress(fmt::format("[{}] note: {}", row.name, row.note));
  }
}

bool RunWorkflow::check_version(const KernelSpec& spec, KernelInstance& inst, VersionRow& row, Clock::time_point t0) {
  trace_event("check: start " + row.name);
  CheckResult cr = ports_.check(inst, req_.check);
  trace_event("check: end " + row.name);
  expected_ = cr.expected;
  note_buffers(spec, inst, row);     // after the check, which prepared them (a version timed first already had)
  auto checked = Clock::now() - t0;  // the check's own time, without the wait for the environment
  row.steps_s["check"] = std::chrono::duration<double>(checked).count();
  // Checked beside the environment probe; reported only once it passed (publish). In a run with
  // per-version ncu sessions the profile follows at once, so the check waits for it here.
  if (!results_wait_for_env() && !env_ready()) return false;
  row.status = cr.pass ? VersionStatus::Pass : VersionStatus::Fail;
  row.status_reason = cr.pass ? "" : first_failure(cr);
  if (cr.fault) row.fault = cr.fault->kind;
  publish([folder = row.folder, cr, header = kernel_header_rows(spec, inst, req_.ref),
           line = step_text(row.name, "check", correctness_text(row), row.steps_s["check"])] {
    write_correctness_reports(folder, cr, header);
    print_progress(line);
  });
  if (cr.pass && !ports_.gpu_lost()) return true;
  out_.exit_code = std::max(out_.exit_code, 1);
  return false;
}

void RunWorkflow::profile_version(const KernelSpec& spec, KernelInstance& inst, VersionRow& row, Clock::time_point t0) {
  ProfileSettings ps = profile_settings();
  ps.expected = &expected_;
  ports_.wait_gpu_probes();  // the environment's ncu probe never runs beside timed calls
  inst.prepare(spec.seed);
  if (req_.one_ncu_session && ps.run_ncu) {
    ps.show_progress = !results_wait_for_env();  // its result lines wait for the environment (say)
    pending_.push_back(ports_.time_for_session(inst, spec, ps, row.name, row.folder, /*with_work=*/true));
    pending_rows_.push_back(out_.rows.size());  // run_versions appends this row next
    fill_timing_columns(row, pending_.back().out.timing);
    say(step_text(row.name, "timing", fmt_duration_ms(row_time_ms(pending_.back().out.timing)) + " per call",
                  seconds_since(t0)));
    return;
  }
  record_profile(row, ports_.profile(inst, spec, ps, row.folder, kernel_header_rows(spec, inst)), t0);
}

double RunWorkflow::row_time_ms(const TimingResult& t) {
  auto k = reported_kernel_time(t);
  return k ? k->stats->median : t.call.median;
}

void RunWorkflow::record_profile(VersionRow& row, const ProfileOutcome& p, Clock::time_point t0) {
  fill_timing_columns(row, p.timing);
  if (row.integrity == "fail") {
    out_.exit_code = std::max(out_.exit_code, 1);
    print_error(
        fmt::format("[{}] {}", row.name, row.status_reason),
        "the time of this version is not the time of computing its answer (timing.integrity in its profile.json)");
  }
  fill_ncu_columns(row, p.analysis ? &p.analysis->verdict : nullptr, p.analysis ? &p.analysis->table : nullptr,
                   p.classified, p.failure);
  if (p.classified) profiled_.emplace_back(row.name, *p.analysis);
  if (p.json.is_object()) profile_docs_.emplace_back(row.name, p.json);
  trace_timings_.push_back(trace_timing_of(row.name, p.timing));
  if (!p.classified && req_.profile.run_ncu) out_.exit_code = std::max(out_.exit_code, 1);
  std::string cls = class_text(row);
  step_line(row.name, "profile",
            row.pct_of_bound ? fmt::format("{}, at {:.1f}% of the bound (at most {:.2f}x faster)", cls,
                                           *row.pct_of_bound, row.max_speedup.value_or(1.0))
                             : cls,
            t0);
}

void RunWorkflow::finish_profiles() {
  if (stopped_ || pending_.empty()) return;
  const bool gpu_usable = !ports_.gpu_lost();
  // A standby session is released before the environment check has ended (the check's
  // Python probe can outlast the versions' checks and timings); its results are used only once the
  // environment has passed (go_on), and ncu is stopped when it fails. Without one, ncu waits for it.
  if ((!gpu_usable || !ports_.has_standby()) && !env_ready()) return;
  try {
    // The run's chart starts with the versions' charts, once they are classified.
    auto start_run_chart = [this](const std::vector<PendingProfile>& classified) {
      if (!req_.profile.roofline) return;
      std::vector<std::pair<std::string, const NcuAnalysis*>> done;
      for (const auto& p : classified)
        if (p.out.classified) done.emplace_back(p.name, &*p.out.analysis);
      run_chart_ = start_versions_roofline(req_.output_dir, done);
    };
    ports_.profile_pending(pending_, profile_settings(), req_.output_dir, gpu_usable, start_run_chart,
                           [this] { return env_ready(); });
    if (stopped_) return;  // the environment failed while ncu ran: nothing of it is reported
  } catch (const Error& e) {
    for (size_t k = 0; k < pending_.size(); ++k) {
      VersionRow& row = out_.rows[pending_rows_[k]];
      row.profile = ProfileStatus::NotClassified;
      row.profile_reason = one_line_summary(e.what());
    }
    print_error(std::string("ncu step: ") + e.what(), e.hint());
    out_.exit_code = std::max(out_.exit_code, static_cast<int>(e.code()));
    return;
  }
  for (size_t k = 0; k < pending_.size(); ++k) {  // each line shows the version's own share of the ncu step
    auto own = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(pending_[k].ncu_step_s));
    record_profile(out_.rows[pending_rows_[k]], pending_[k].out, Clock::now() - own);
  }
}

}  // namespace kprof
