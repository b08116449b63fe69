#include "flows/run_flow.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <map>
#include <optional>

#include "stages/analysis/derived.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "kernel/guarded_call.hpp"
#include "kernel/load.hpp"
#include "stages/verify/reference_loader.hpp"
#include "stages/verify/reference.hpp"
#include "flows/report_files.hpp"
#include "report/roofline_chart.hpp"
#include "flows/ncu_session.hpp"
#include "flows/env_gate.hpp"
#include "flows/ncu_standby.hpp"
#include "flows/parallel_builds.hpp"

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

/// "[v1] check: PASS (2.3 s)".
void step_line(const std::string& version, const std::string& step, const std::string& what, Clock::time_point t0) {
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  print_progress(fmt::format("[{}] {}: {} ({:.1f} s)", version, step, what, s));
}

/// roofline.svg of `kprof run`: each version's leading kernel with its bound; started on the
/// chart workers (RooflineJob::note() waits for it and says why not).
RooflineJob start_versions_roofline(const std::string& dir,
                                    const std::vector<std::pair<std::string, const NcuAnalysis*>>& done) {
  std::vector<RooflineEntry> entries;
  const Ceilings* ceilings = nullptr;
  for (const auto& [name, a] : done) {
    const CallVerdict& v = a->verdict;
    if (v.leading < 0 || !v.ceilings) continue;
    if (!ceilings) ceilings = &*v.ceilings;
    entries.push_back({name, &a->table.kernels[static_cast<size_t>(v.leading)], v.work, v.bound});
  }
  if (!ceilings) return RooflineJob::not_drawn("roofline not drawn: no version was classified");
  return start_roofline(dir, roofline_spec(entries, *ceilings, "kprof roofline: the versions' leading kernels"));
}

/// "A: f32 x 1024, C: f32 x 1024" from {"A", "f32 x 1024"}, {"C", "f32 x 1024"}.
std::string buffer_list(const std::vector<std::pair<std::string, std::string>>& buffers) {
  std::vector<std::string> parts;
  for (const auto& [name, what] : buffers) parts.push_back(name + ": " + what);
  return fmt::format("{}", fmt::join(parts, ", "));
}

/// The row of version `j` before it runs.
VersionRow new_row(const RunRequest& req, const std::vector<std::string>& names, size_t j) {
  VersionRow r;
  r.name = names[j];
  r.kernel = req.versions[j].kernel;
  r.folder = join_path(req.output_dir, names[j]);
  return r;
}

std::string first_failure(const CheckResult& r) {
  if (r.fault) return r.fault->message;
  for (const auto& t : r.trials) {
    for (const auto& o : t.outputs)
      if (!o.pass) return o.name + ": " + o.reason;
    for (const auto& g : t.guards) return "write " + std::string(g.before ? "before" : "past") + " buffer " + g.buffer;
    for (const auto& m : t.modified_inputs)
      if (m.fails) return "const input " + m.name + " modified";
  }
  return "failed";
}

}  // namespace

std::vector<std::string> version_folder_names(const std::vector<KernelSpec>& versions) {
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const auto& v : versions) {
    std::string stem = file_stem(v.kernel);
    int n = ++seen[stem];
    names.push_back(n == 1 ? stem : fmt::format("{}-{}", stem, n));
  }
  return names;
}

namespace {

/// The run's profile settings (its ref.py for the work model).
ProfileSettings run_profile_settings(const RunRequest& req) {
  ProfileSettings ps = req.profile;
  ps.ref = req.ref;
  return ps;
}

/// validate_spec of every version; the .cu ones at once (each reads solve() through nvcc's host
/// preprocessor, 0.1 s or more), the .py ones on this thread (their check runs Python). Rethrows
/// the first version's error, in the order given.
void validate_versions(const std::vector<KernelSpec>& versions) {
  std::vector<std::future<void>> cu(versions.size());
  for (size_t i = 0; i < versions.size(); ++i) {
    bool python = true;  // also when the implementation does not resolve: validate_spec says why, in order
    try {
      python = is_python_impl(spec_implementation(versions[i]));
    } catch (const Error&) {
    }
    if (!python) cu[i] = std::async(std::launch::async, [&versions, i] { validate_spec(versions[i]); });
  }
  std::exception_ptr first;
  for (size_t i = 0; i < versions.size(); ++i) {
    try {
      if (cu[i].valid())
        cu[i].get();
      else if (!first)
        validate_spec(versions[i]);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

/// True when the run's ncu step is one session for two or more versions, which may start in standby.
bool standby_wanted(const RunRequest& req) {
  return req.one_ncu_session && req.profile.run_ncu && req.versions.size() >= 2;
}

/// One `kprof run`: the versions in turn, each loaded, checked and (when correct) profiled; the
/// comparison and its reports at the end. Each step records its outcome on the version's row.
class RunWorkflow {
 public:
  /// Starts loading ref.py in the background (PyTorch's import overlaps the environment probe and
  /// the builds); `builds` are the versions' builds, already started.
  RunWorkflow(const RunRequest& req, RunOutcome& out, ParallelBuilds& builds, EnvGate& env, StandbySlot& standby)
      : req_(req),
        out_(out),
        names_(version_folder_names(req.versions)),
        builds_(builds),
        env_(env),
        standby_(standby),
        reference_(req.ref, req.versions[0].gpu) {}

  /// The environment gate (flows/env_gate.hpp): waits for the check running beside the versions;
  /// when it failed the run stops (builds cancelled, exit 1) and nothing of the versions is reported.
  bool env_ready() {
    if (env_.wait()) return true;
    if (!stopped_) builds_.cancel();
    stopped_ = true;
    out_.exit_code = 1;
    return false;
  }

  /// Runs every version (stops after a hung GPU or a ref.py that does not load).
  void run_versions() {
    for (size_t i = 0; i < req_.versions.size(); ++i) {
      VersionRow r = run_version(i);
      if (stopped_) return;  // the environment is not ready: no row is a result
      out_.rows.push_back(std::move(r));
      const VersionRow& row = out_.rows.back();
      std::string why;
      if (hard_exit_requested())
        why = row.name + " left the GPU unusable (hung kernel or lost context)";
      else if (reference_.load_failed())
        why = "ref.py could not be loaded (see " + row.name + ")";
      if (why.empty()) continue;
      for (size_t j = i + 1; j < req_.versions.size(); ++j) {
        VersionRow r = new_row(req_, names_, j);
        r.status = VersionStatus::NotRun;
        r.status_reason = why;
        out_.rows.push_back(r);
      }
      break;
    }
  }

  /// Compares the rows and writes comparison.md/.json and roofline.svg.
  void write_comparison() {
    std::string basis = choose_time_basis(out_.rows);
    out_.comparison = compare_versions(out_.rows);
    write_file_atomic(join_path(req_.output_dir, "comparison.md"),
                      comparison_markdown(out_.rows, out_.comparison, header_, basis));
    nlohmann::json cj = comparison_json(out_.rows, out_.comparison, header_, basis);
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
    write_file_atomic(join_path(req_.output_dir, "comparison.json"), cj.dump(2) + "\n");
  }

 private:
  /// Version `i`: its build (waited for), load, check and, when correct, profile once every build
  /// has ended. An Error from a step goes on its row; each step's seconds go to row.steps_s.
  VersionRow run_version(size_t i) {
    KernelSpec spec = req_.versions[i];
    VersionRow row = new_row(req_, names_, i);
    auto t0 = Clock::now();
    if (!step(row, "build", t0, [&] { wait_build(i, spec, row); })) return row;
    t0 = Clock::now();
    std::unique_ptr<KernelInstance> inst;
    if (!step(row, "load", t0, [&] { inst = load_kernel(spec, /*extra_copies=*/3.0); })) return row;
    row.steps_s["load"] = seconds_since(t0);
    t0 = Clock::now();
    bool correct = false;
    if (!step(row, "check", t0, [&] { correct = check_version(spec, *inst, row, t0); })) return row;
    if (!correct) return row;
    builds_.wait_all();  // no nvcc on the CPU while calls are timed or ncu runs
    t0 = Clock::now();
    step(row, "profile", t0, [&] { profile_version(spec, *inst, row, t0); });
    row.steps_s["profile"] = seconds_since(t0);
    return row;
  }

  /// Waits for version `i`'s build (ParallelBuilds); on success `spec` loads the built .so as is.
  void wait_build(size_t i, KernelSpec& spec, VersionRow& row) {
    const VersionBuild& b = builds_.wait(i);  // rethrows a failed build's Error: the row's LoadError
    if (!b.needed || !b.result) return;
    row.build = build_how_text(*b.result);
    row.steps_s["build"] = b.wall_s;
    spec.build = false;
  }

  static double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

  /// Runs `fn`; an Error is recorded on `row` as the failure of `name` (the run goes on).
  template <typename Fn>
  bool step(VersionRow& row, const std::string& name, Clock::time_point t0, Fn fn) {
    try {
      fn();
      return true;
    } catch (const Error& e) {
      if (!env_ready()) return false;  // a machine that is not ready explains the failure: its blockers are printed
      if (name == "profile") {
        row.profile = ProfileStatus::NotClassified;
        row.profile_reason = one_line_summary(e.what());
      } else {
        row.status = name == "check" ? VersionStatus::CheckError : VersionStatus::LoadError;  // build, load
        row.status_reason = one_line_summary(e.what());
      }
      if (name != "build") step_line(row.name, name, "ERROR", t0);  // the pool printed the build's line
      print_error(fmt::format("[{}] {}", row.name, e.what()), e.hint());
      out_.exit_code = std::max(out_.exit_code, static_cast<int>(e.code()));
      return false;
    }
  }

  /// The comparison header from the first loaded version; a note on `row` when its buffers differ.
  void note_buffers(const KernelSpec& spec, const KernelInstance& inst, VersionRow& row) {
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

  /// The check; writes the version's correctness reports. Returns whether it may be profiled.
  bool check_version(const KernelSpec& spec, KernelInstance& inst, VersionRow& row, Clock::time_point t0) {
    note_buffers(spec, inst, row);
    CheckResult cr = run_check(
        inst, [&]() -> ReferenceRunner& { return reference_.get(); }, req_.check);
    auto checked = Clock::now() - t0;  // the check's own time, without the wait for the environment
    row.steps_s["check"] = std::chrono::duration<double>(checked).count();
    if (!env_ready()) return false;  // checked beside the environment probe; reported only once it passed
    write_correctness_reports(row.folder, cr, kernel_header_rows(spec, inst, req_.ref));
    row.status = cr.pass ? VersionStatus::Pass : VersionStatus::Fail;
    row.status_reason = cr.pass ? "" : first_failure(cr);
    if (cr.fault) row.fault = cr.fault->kind;
    step_line(row.name, "check", correctness_text(row), Clock::now() - checked);
    if (cr.pass && !hard_exit_requested()) return true;
    out_.exit_code = std::max(out_.exit_code, 1);
    return false;
  }

  /// Timing, ncu and the classification of a correct version (fresh buffers: one prepare()).
  /// With one ncu session for the run, only the timing happens here (finish_profiles does the rest).
  void profile_version(const KernelSpec& spec, KernelInstance& inst, VersionRow& row, Clock::time_point t0) {
    ProfileSettings ps = profile_settings();
    inst.prepare(spec.seed);
    if (req_.one_ncu_session && ps.run_ncu) {
      pending_.push_back(time_for_session(inst, spec, ps, row.name, row.folder));
      pending_rows_.push_back(out_.rows.size());  // run_versions appends this row next
      fill_timing_columns(row, pending_.back().out.timing);
      step_line(row.name, "timing", fmt_duration_ms(row_time_ms(pending_.back().out.timing)) + " per call", t0);
      return;
    }
    record_profile(row, run_profile(inst, spec, ps, row.folder, kernel_header_rows(spec, inst)), t0);
  }

  ProfileSettings profile_settings() const { return run_profile_settings(req_); }

  static double row_time_ms(const TimingResult& t) {
    return t.kernel.available ? t.kernel.summary.sum.median : t.call.median;
  }

  /// A version's profile outcome on its row, with its progress line.
  void record_profile(VersionRow& row, const ProfileOutcome& p, Clock::time_point t0) {
    fill_timing_columns(row, p.timing);
    fill_ncu_columns(row, p.analysis ? &p.analysis->verdict : nullptr, p.analysis ? &p.analysis->table : nullptr,
                     p.classified, p.failure);
    if (p.classified) profiled_.emplace_back(row.name, *p.analysis);
    if (!p.classified && req_.profile.run_ncu) out_.exit_code = std::max(out_.exit_code, 1);
    std::string cls = class_text(row);
    step_line(row.name, "profile",
              row.pct_of_bound ? fmt::format("{}, at {:.1f}% of the bound (at most {:.2f}x faster)", cls,
                                             *row.pct_of_bound, row.max_speedup.value_or(1.0))
                               : cls,
              t0);
  }

 public:
  /// The ncu step of the versions timed for one session, and their reports (flows/ncu_session.hpp).
  void finish_profiles() {
    if (pending_.empty()) return;
    try {
      // The run's chart starts with the versions' charts, once they are classified.
      auto start_run_chart = [this](const std::vector<PendingProfile>& classified) {
        if (!req_.profile.roofline) return;
        std::vector<std::pair<std::string, const NcuAnalysis*>> done;
        for (const auto& p : classified)
          if (p.out.classified) done.emplace_back(p.name, &*p.out.analysis);
        run_chart_ = start_versions_roofline(req_.output_dir, done);
      };
      profile_pending(pending_, profile_settings(), req_.output_dir, !hard_exit_requested(), standby_.get(),
                      start_run_chart);
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

 private:
  const RunRequest& req_;
  RunOutcome& out_;
  std::vector<std::string> names_;
  ParallelBuilds& builds_;
  EnvGate& env_;
  StandbySlot& standby_;
  bool stopped_ = false;  ///< the environment is not ready: the run reports nothing more
  BackgroundReference reference_;
  std::vector<std::pair<std::string, std::string>> header_;
  std::vector<std::pair<std::string, std::string>> first_buffers_;  ///< the first loaded version's
  std::vector<std::pair<std::string, NcuAnalysis>> profiled_;       ///< classified versions, for the chart
  std::optional<RooflineJob> run_chart_;                            ///< roofline.svg of the run, once started
  std::vector<PendingProfile> pending_;                             ///< timed versions waiting for the one ncu session
  std::vector<size_t> pending_rows_;                                ///< their rows in out_.rows
};

}  // namespace

RunOutcome run_workflow(const RunRequest& req) {
  RunOutcome out;
  if (req.versions.empty()) throw usage_error("kprof run needs at least one kernel file");
  const KernelSpec& first = req.versions.front();
  validate_versions(req.versions);  // input errors first: exit 2 on any machine
  check_reference_source(req.ref);
  make_dirs(req.output_dir);

  // 1. The builds (nvcc, one thread per core at most), the ref.py load and the environment check
  //    start now and run beside each other; the first versions load and are checked meanwhile.
  //    Nothing of them is reported before the environment has passed (RunWorkflow::env_ready), and
  //    no call is timed before (the environment's probes use the CPU and the GPU).
  //    The one Nsight Compute session starts in standby as soon as the environment's own ncu probe
  //    has ended (flows/ncu_standby.hpp), so its start-up is done when the versions are timed.
  const std::vector<std::string> names = version_folder_names(req.versions);
  ParallelBuilds builds(req.versions, names);
  StandbySlot standby;
  auto start_standby = [&req, &names, &standby](const EnvFacts& f) {
    if (!standby_wanted(req) || !f.ncu.ok() || !f.counters.readable) return;
    std::vector<SessionPlanEntry> prelim;
    for (size_t i = 0; i < req.versions.size(); ++i) prelim.push_back({names[i], spec_to_args(req.versions[i])});
    try {
      standby.start(prelim, req.versions.front(), run_profile_settings(req), req.output_dir);
    } catch (const Error& e) {  // the session then starts when the versions are timed
      print_warning(std::string("ncu session: no standby start: ") + e.what());
    }
  };
  EnvOptions eo;
  eo.gpu = first.gpu;
  eo.timeout_s = req.env_timeout_s;
  eo.on_counters_probed = start_standby;
  if (req.env) start_standby(req.env->facts);  // probed before (a worker's later sizes): no ncu probe runs now
  EnvGate env(eo, req.env, join_path(req.output_dir, "env_check.md"));
  RunWorkflow flow(req, out, builds, env, standby);
  try {
    select_gpu(first.gpu);  // the CUDA context for the checks (no GPU: the environment's blockers say why)
  } catch (const Error&) {
    if (!(out.env_ready = flow.env_ready())) return out;
    throw;
  }
  flow.run_versions();
  out.env_ready = flow.env_ready();
  if (!out.env_ready) return out;
  flow.finish_profiles();
  flow.write_comparison();
  return out;
}

}  // namespace kprof
