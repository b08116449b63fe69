// The environment check of `kprof run`, on a thread of its own: it runs while the
// versions build, ref.py loads and the first versions are checked; no result is reported until it
// has passed. EnvGate::wait() is the gate: the run calls it before it writes or prints any
// version's result, and stops when a required item failed; EnvGate::wait_gpu_probes() comes before
// the first timed call (the environment's ncu probe must not run beside it).
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <string>

#include "stages/env/env_check.hpp"
#include "stages/env/readiness.hpp"

namespace kprof {

/// One run's environment check, started at construction.
class EnvGate {
 public:
  /// Probes with `opts` on another thread (collect_env, then assess_env); with `known` (a worker
  /// that probed once for several sizes) uses that report as is and probes nothing. The report is
  /// written to `report_path` (env_check.md and .json) by the first wait().
  EnvGate(const EnvOptions& opts, const EnvReport* known, std::string report_path);
  ~EnvGate();
  EnvGate(const EnvGate&) = delete;
  EnvGate& operator=(const EnvGate&) = delete;

  /// Waits for the check (once), writes its report, prints "[env] environment: ready (6.3 s)" and,
  /// when a required item failed, each blocker and what to do. Returns whether the machine is
  /// ready; the same answer on every later call. Throws Error only when the report cannot be
  /// written.
  bool wait();

  /// Waits until the environment's own GPU work has ended: its ncu counter probe (EnvOptions::
  /// on_counters_probed; right away with a known report). What still runs then (the Python probe,
  /// a subprocess importing torch) uses the CPU only: measured on the H200, it moved call and
  /// kernel medians by less than their noise (bench/RESULTS.md (g)), so calls may be timed meanwhile.
  void wait_gpu_probes();

  /// True when wait() would not wait: the check has ended (or the report was given).
  bool done() const;

  /// The report; valid after wait().
  const EnvReport& report() const { return *report_; }

 private:
  std::chrono::steady_clock::time_point start_;
  std::string report_path_;
  std::future<EnvReport> pending_;
  std::shared_future<void> gpu_probes_done_;  ///< set once the ncu counter probe has ended (or was skipped)
  std::optional<EnvReport> report_;
  bool waited_ = false;
  bool known_ = false;  ///< the report was given (probed before), not probed here
};

}  // namespace kprof
