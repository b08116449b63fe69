// `kprof run`'s state machine (flows/run/run_flow.cpp: run_workflow): the versions in turn, their
// checks, timings and the one ncu session, the results shown only once the environment passed.
// Internal to flows/; its methods live in run_workflow.cpp and (the versions timed before their
// checks) run_deferred.cpp.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flows/ncu_session.hpp"
#include "flows/run/run_ports.hpp"
#include "flows/run/run_request.hpp"
#include "flows/run/run_steps.hpp"
#include "report/roofline_chart.hpp"
#include "report/run_trace.hpp"
#include "stages/verify/reference_loader.hpp"

namespace kprof {

/// One `kprof run`: the versions in turn, each loaded, checked and (when correct) profiled; the
/// comparison and its reports at the end. Each step records its outcome on the version's row.
class RunWorkflow {
 public:
  using Clock = std::chrono::steady_clock;

  /// `ports` are its steps (flows/run/run_ports.hpp: GpuRunPorts, whose ref.py load and builds are
  /// already started, or a test's fakes).
  RunWorkflow(const RunRequest& req, RunOutcome& out, RunPorts& ports)
      : req_(req), out_(out), names_(version_folder_names(req.versions)), ports_(ports) {}

  /// The environment gate (flows/env_gate.hpp): waits for the check running beside the versions;
  /// when it failed the run stops (builds cancelled, exit 1) and nothing of the versions is reported.
  bool env_ready();

  /// When no GPU can be used (drive_run, before env_ready()): waits for the versions' builds and
  /// reports each failure, one error per distinct message with its hint (a compile error with --arch
  /// needs no GPU: the user's own mistake comes before the environment's blockers; the exit code is
  /// the builds' worst). Versions without --arch could not build for want of the GPU: one note names
  /// them and what --arch would do, and their exit stays the environment's (1). Returns true when a
  /// build with --arch failed.
  bool report_build_failures();

  /// Runs every version (stops after a hung GPU or a ref.py that does not load). Compiled versions
  /// loaded while ref.py still imports PyTorch are timed first and checked once it is there
  /// (check_deferred); nothing of them is shown before their check.
  void run_versions();

  /// Compares the rows and writes comparison.md/.json (with the decision block of --decide) and
  /// roofline.svg.
  void write_comparison();
  /// Writes DIR/trace.json (report/run_trace.hpp) with the KPROF_TRACE timeline merged in; returns its path.
  std::string write_run_trace();

  /// The interleaved rounds (run_decide.cpp), with --decide and by default for two or more
  /// versions: the correct versions, kept loaded, timed in rounds (stages/timing/rounds_gpu.hpp),
  /// a second set with --confirm, the decision per candidate into RunOutcome::decision and its
  /// lines printed; write_comparison takes the vs-first verdicts from it. Without --decide the
  /// rounds time kernel time within kRunRoundsBudgetS, and when they cannot run (memory, a failed
  /// call) a warning says why and every vs-first verdict is inconclusive (the run's exit code is
  /// unchanged). With --decide and without --decide-ncu the rounds' times fill the rows' times.
  /// Does nothing for one version or once the run has stopped.
  void decide_rounds();

  /// The ncu step of the versions timed for one session, and their reports (flows/ncu_session.hpp).
  /// A standby session is released before the environment check has ended and stopped when that
  /// check fails (then nothing is reported: env_ready() is false); else the check is waited for
  /// first. Does nothing once the run has stopped.
  void finish_profiles();

 private:
  /// Whether a version's result is shown now or queued until the environment has passed: in a run
  /// with one ncu session, versions are checked and timed beside the environment check.
  bool results_wait_for_env() const { return req_.one_ncu_session && req_.profile.run_ncu && !ports_.env_done(); }

  /// Runs `fn` (a version's reports and result line: self-contained, no row reference) once the
  /// environment has passed: now, or in order when it has (dropped when it fails).
  void publish(std::function<void()> fn);

  /// publish() of one progress line.
  void say(std::string line);

  /// Runs what publish() queued, in order (env_ready() calls it once the environment passed).
  void flush_published();

  /// Version `i`: its build (waited for), load, check and, when correct, profile once every build
  /// has ended. An Error from a step goes on its row; each step's seconds go to row.steps_s.
  VersionRow run_version(size_t i);

  /// After version `name`'s step: why the versions after it cannot run (why_stop_, once).
  void note_stop(const std::string& name);

  /// Whether a loaded version is timed before its check: a compiled one (its calls need
  /// no Python) in a run with one ncu session, while ref.py still loads, as long as the versions
  /// kept for their checks hold at most half of the free device memory.
  bool may_time_before_check(const KernelInstance& inst) const;

  /// Times `inst` now and keeps it for its check (check_deferred). Nothing is printed: a timing is
  /// a result only once the version passed. A timing that left the GPU unusable makes the version
  /// a CheckError (the check cannot run any more).
  void time_before_check(const KernelSpec& spec, std::unique_ptr<KernelInstance> inst, VersionRow& row);

  /// The checks of the versions timed before them, in order (waits for ref.py and the environment).
  /// A version that fails, or cannot be checked any more, loses its timing.
  void check_deferred();

  /// Before a Python version's load: the run's one import of the packages it shares with ref.py
  /// and the later versions (shared_python_modules: torch, then triton or cutlass.cute; ref.py's
  /// load may be importing torch beside it, and this waits for that), timed apart from the
  /// version's own load: row.steps_s["python import"] (seconds) and one progress line, on the
  /// first version that imports them. A package that fails to import is left to the load, which
  /// reports it.
  void import_shared_python(const KernelSpec& spec, VersionRow& row);

  /// Waits for version `i`'s build (ParallelBuilds); on success `spec` loads the built .so as is.
  void wait_build(size_t i, KernelSpec& spec, VersionRow& row);

  /// Seconds since `t0`.
  static double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

  /// Runs `fn`; an Error is recorded on `row` as the failure of `name` (the run goes on).
  bool step(VersionRow& row, const std::string& name, Clock::time_point t0, const std::function<void()>& fn);

  /// The comparison header from the first loaded version; a note on `row` when its buffers differ.
  void note_buffers(const KernelSpec& spec, const KernelInstance& inst, VersionRow& row);

  /// The check; writes the version's correctness reports. Returns whether it may be profiled.
  bool check_version(const KernelSpec& spec, KernelInstance& inst, VersionRow& row, Clock::time_point t0);

  /// Timing, ncu and the classification of a correct version (fresh buffers: one prepare()).
  /// With one ncu session for the run, only the timing happens here (finish_profiles does the rest).
  void profile_version(const KernelSpec& spec, KernelInstance& inst, VersionRow& row, Clock::time_point t0);

  /// The run's profile settings (run_profile_settings).
  ProfileSettings profile_settings() const { return run_profile_settings(req_); }

  /// The time a version's row shows: kernel time (CUPTI) when measured, else call time, ms.
  static double row_time_ms(const TimingResult& t);

  /// A version's profile outcome on its row, with its progress line.
  void record_profile(VersionRow& row, const ProfileOutcome& p, Clock::time_point t0);

  const RunRequest& req_;
  RunOutcome& out_;
  std::vector<std::string> names_;
  RunPorts& ports_;
  bool stopped_ = false;  ///< the environment is not ready: the run reports nothing more
  std::vector<std::pair<std::string, std::string>> header_;
  /// The reference answers of the version being run (its check's CheckResult::expected), for the
  /// timing's last-outputs integrity check.
  std::vector<ExpectedOutputs> expected_;
  std::vector<std::pair<std::string, std::string>> first_buffers_;  ///< the first loaded version's
  std::vector<std::pair<std::string, NcuAnalysis>> profiled_;       ///< classified versions, for the chart
  std::optional<RooflineJob> run_chart_;                            ///< roofline.svg of the run, once started
  std::vector<PendingProfile> pending_;                             ///< timed versions waiting for the one ncu session
  std::vector<size_t> pending_rows_;                                ///< their rows in out_.rows
  /// A compiled version timed before its check (time_before_check), kept until it is checked.
  struct DeferredCheck {
    size_t row = 0;      ///< its row in out_.rows
    size_t pending = 0;  ///< its timing in pending_, or kNoTiming when the timing failed
    KernelSpec spec;
    std::unique_ptr<KernelInstance> inst;
    size_t bytes = 0;     ///< device bytes its buffers hold
    double timing_s = 0;  ///< seconds its timing took
  };
  static constexpr size_t kNoTiming = static_cast<size_t>(-1);
  std::vector<DeferredCheck> deferred_;
  std::set<std::string> python_imported_;         ///< packages import_shared_python() has imported
  std::string why_stop_;                          ///< why the versions not yet run will not run ("" while they may)
  std::vector<std::function<void()>> published_;  ///< results waiting for the environment (publish)
  /// --decide: a correct version kept loaded for the rounds (decide_rounds).
  struct DecideArm {
    size_t row = 0;  ///< its row in out_.rows
    std::unique_ptr<KernelInstance> inst;
  };
  std::vector<DecideArm> decide_arms_;
  /// --decide: a second instance of the baseline (its own buffers) for the A/A arm; null when it
  /// could not be loaded (decide_aa_note_ says why; the arm then reuses the baseline's instance).
  std::unique_ptr<KernelInstance> decide_aa_;
  std::string decide_aa_note_;
  /// The rounds of the first set (kept for the verdicts against the fastest) and each row's arm in
  /// them (-1: not timed); unset before decide_rounds or when no rounds ran.
  std::optional<RoundsResult> rounds_;
  std::vector<int> rounds_arm_of_row_;
  /// Notes of the rounds said before they ran (a version not kept for them: memory).
  std::vector<std::string> rounds_notes_;
  /// Whether the versions are timed in interleaved rounds: with --decide, and by default whenever
  /// two or more versions run (their vs-first verdicts come from the rounds, issue 49 item 1).
  bool rounds_wanted() const { return req_.decide.enabled || req_.versions.size() >= 2; }
  /// Keeps the correct version of row `row` loaded for the rounds. With --decide always (the
  /// rounds' plan says when they do not fit); by default only while every kept version's buffers
  /// times the input sets stay within half of the free device memory (the later versions still
  /// load): else it is released, a note says so and its verdict is inconclusive.
  void keep_for_rounds(size_t row, std::unique_ptr<KernelInstance> inst);

  // What report.html and trace.json draw (write_comparison, write_run_trace).
  /// Each profiled version's profile.json.
  std::vector<std::pair<std::string, nlohmann::json>> profile_docs_;
  /// Each timed version's pass.
  std::vector<TraceTiming> trace_timings_;
  /// --decide's first set of rounds.
  std::optional<RoundsResult> trace_rounds_;
  /// Their arms' names (the A/A arm last).
  std::vector<std::string> trace_arms_;
  /// --decide: keeps a correct version for the rounds (row: the row run_versions appends next).
  void keep_for_decision(std::unique_ptr<KernelInstance> inst) { keep_for_rounds(out_.rows.size(), std::move(inst)); }
  /// --decide: loads the baseline (`spec`, version 0) a second time for the A/A arm (decide_aa_).
  void load_aa_instance(const KernelSpec& spec);
  /// --decide: the rounds (and with --confirm the second set) of `versions` (arm i: versions[i];
  /// arm_of_row maps rows to arms, -1 when not timed) and their decisions; fills the rows' times
  /// without --decide-ncu. Throws the Error of measure_rounds.
  DecisionReport time_rounds(const std::vector<KernelInstance*>& versions, const std::vector<int>& arm_of_row);
  /// --decide: the rounds' times of one arm as its row's times (rows not profiled otherwise):
  /// its call times, or with `kernel` its kernel times (CUPTI).
  static void fill_round_times(VersionRow& row, const std::vector<double>& kept_ms, bool kernel);
};

/// The versions of `req` through `ports` (their GPU selected, run, --decide's rounds, the ncu
/// step), then comparison.md/.json once the environment passed: run_workflow's steps after the
/// builds and the environment check have started. Throws what selecting the GPU throws when the
/// environment passed (else the outcome says it failed: exit 1).
RunOutcome drive_run(const RunRequest& req, RunPorts& ports);

}  // namespace kprof
