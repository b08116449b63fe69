// The standby Nsight Compute session of `kprof run`. ncu and the process it profiles
// (`kprof __session PRELIM --standby GO`) start while the run still checks and times its versions:
// ncu's own start-up, the profiled process's CUDA context and, for Triton and CuTe DSL versions,
// its PyTorch import (about 5 s) are then done by the time the versions are timed. The process does
// no GPU work while it waits. The run releases it by writing the final plan (GO: the versions to
// profile, in order, with their runner words) and then waits for ncu as for any session.
//
// It starts as the environment's ncu counter probe (`probe`): its process first profiles kprof's
// probe kernel in a range of its own (stages/ncu/session_probe.hpp), and the environment check
// reads the outcome (wait_probe) instead of running a probe of its own; so one ncu starts, not
// two, and ncu's costlier first profiled launch falls while the versions build. Where it cannot
// start, the environment probes by itself and the session starts after that probe, when the
// counters are readable (never two ncu processes at once). A standby that is not used (the run stopped,
// fewer than two versions to share a session) is cancelled: GO says {"cancel": why} and the process
// ends without profiling anything; ncu's output is then not shown.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flows/ncu_options.hpp"
#include "flows/profile_settings.hpp"
#include "core/tools.hpp"
#include "stages/ncu/session.hpp"

namespace kprof {

/// The ncu options of the run's one session, in standby or not: kprof itself with `words`
/// ("__session", the plan, ...) as the target, report RUN_DIR/run.ncu-rep, NVTX ranges recorded, a
/// partial report kept when the runner fails (settings `s`: metrics, sections, source, timeout).
NcuRunOptions one_session_options(const KernelSpec& first, const ProfileSettings& s, const std::string& run_dir,
                                  const std::vector<std::string>& words);

/// One standby session; constructed when it should start.
class StandbySession {
 public:
  /// Starts ncu (settings `s`: metrics, sections, source, timeout per version) on `kprof __session`
  /// with the preliminary plan `prelim` (every version, spec_to_args words) in `run_dir`: writes
  /// RUN_DIR/ncu_session.standby.json and removes a stale RUN_DIR/ncu_session.json. Returns at once.
  /// With `probe` its process profiles kprof's probe kernel first (wait_probe reads the outcome).
  StandbySession(const std::vector<SessionPlanEntry>& prelim, const KernelSpec& first, const ProfileSettings& s,
                 const std::string& run_dir, bool probe = false);
  /// `kprof profile`'s standby: the same machinery for one kernel, so ncu's start-up and
  /// the profiled process's CUDA context (and Python imports) overlap the timing. A one-version
  /// session named `name` whose report is OUT_DIR/profile.ncu-rep, without NVTX ranges, with the
  /// ncu options of a profile of its own (`s`). Throws Error when the plan cannot be written.
  static std::unique_ptr<StandbySession> for_profile(const KernelSpec& spec, const std::string& name,
                                                     const ProfileSettings& s, const std::string& out_dir);
  /// Cancels the session when it was not released, then waits for ncu to end (seconds at most).
  ~StandbySession();
  StandbySession(const StandbySession&) = delete;
  StandbySession& operator=(const StandbySession&) = delete;

  /// Releases the session with `plan` (written to RUN_DIR/ncu_session.json, the GO file), allows it
  /// `timeout_s` from now, and waits for ncu. `read_report` reads the report once ncu wrote it
  /// (NcuRunOptions::read_report: true when it read the metrics, so no CSV export runs). The
  /// result's wall_s counts from the release. Call once.
  /// `go_on`, when given, is called once right after the release, while ncu runs (`kprof run` waits
  /// for its environment check there); when it returns false ncu is stopped at once and the result
  /// says so (NcuFailure::Timeout, `stopped` set): nothing of it is used.
  NcuRunResult release(const std::vector<SessionPlanEntry>& plan, double timeout_s,
                       std::function<bool(const std::string&)> read_report, const std::function<bool()>& go_on = {});

  /// Ends the session unused: GO says {"cancel": why}. No effect after release().
  void cancel(const std::string& why);

  /// The outcome of the counter probe (a session started with `probe`), as the environment's
  /// counters item: waits until the process marked it, ncu ended, or `timeout_s` passed (then
  /// an error saying so, and the session is cancelled). Without `probe`: checked false.
  NcuCounters wait_probe(double timeout_s);

 private:
  /// Writes the preliminary plan into `dir`, then starts ncu with `no` (target words appended).
  StandbySession(const std::vector<SessionPlanEntry>& prelim, NcuRunOptions no, const std::string& dir,
                 bool probe = false);
  /// Settles the probe's outcome once (from ncu's output so far, or all of it once ncu ended).
  void settle_probe(const std::string& out, bool ended, bool timed_out);
  std::string go_path_;
  std::atomic<bool> released_{false};
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> stop_now_{false};     ///< release's go_on said no: ncu is stopped
  std::atomic<double> limit_s_{0};        ///< seconds after the release that ncu may take
  std::atomic<double> released_at_{0};    ///< ncu's elapsed seconds at the release
  std::atomic<double> elapsed_{0};        ///< ncu's elapsed seconds, as last ticked
  std::atomic<double> cancelled_at_{-1};  ///< ncu's elapsed seconds when the cancel was seen
  std::mutex m_;
  std::function<bool(const std::string&)> read_report_;
  bool probe_ = false;
  std::string command_;  ///< ncu's command line (the probe's "Command")
  std::mutex probe_m_;
  std::string probe_out_;  ///< ncu's output until the probe's mark
  bool probe_settled_ = false;
  std::promise<NcuCounters> probe_result_;
  std::future<NcuCounters> probe_future_;
  std::future<NcuRunResult> ncu_;
};

/// Starts the standby session of a run once it may start, from any thread, at most once; the run
/// takes it when its versions are timed. Thread-safe.
class StandbySlot {
 public:
  /// Starts it (StandbySession's constructor) unless one was started already.
  void start(const std::vector<SessionPlanEntry>& prelim, const KernelSpec& first, const ProfileSettings& s,
             const std::string& run_dir, bool probe = false);
  /// The session started, or nullptr.
  StandbySession* get();

 private:
  std::mutex m_;
  std::unique_ptr<StandbySession> session_;
};

}  // namespace kprof
