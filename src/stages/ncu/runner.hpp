// Running Nsight Compute on kprof itself: `ncu ... kprof __runner <same kernel options>`.
// The runner prepares the same inputs from the same seed, warms up outside the profiled range and
// calls the kernel once between cudaProfilerStart/Stop, so with --profile-from-start off ncu profiles
// exactly the kernels of one call (Triton's compilation and autotuning stay in the warm-up).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace kprof {

/// Whether profile/run collect the source-level data (ncu's SourceCounters section and
/// --import-source yes) for the hot lines when neither --source nor --no-source is given. Costs a few
/// replay passes (20 -> 23 for one 4 Mi-element kernel on the H200: 3.2 -> 3.7 s); the GPU suite's
/// `hotlines` stage measures it on a ~10 us and a ~10 ms kernel (docs/gpu-runs.md).
inline constexpr bool kCollectSourceByDefault = true;

/// Default of --metrics: "kprof", the catalog's metrics only (fewest replay passes).
inline constexpr const char* kDefaultMetricSet = "kprof";
/// Default of --ncu-timeout, seconds: the whole ncu run (all replay passes and the runner's start).
inline constexpr double kDefaultNcuTimeoutS = 900;

/// Why an ncu run produced no metrics.
enum class NcuFailure {
  None,
  NcuMissing,    ///< no ncu executable found
  NoPermission,  ///< ERR_NVGPUCTRPERM: the user may not read the GPU performance counters
  CountersBusy,  ///< "a driver resource was unavailable": another ncu or DCGM holds the counters
  NoKernels,     ///< "No kernels were profiled"
  RunnerFailed,  ///< the profiled kprof process failed (its message is in the log)
  Timeout,       ///< ncu ran past the time limit and was stopped
  ImportFailed,  ///< the .ncu-rep could not be exported to CSV
};

/// How to run ncu.
struct NcuRunOptions {
  std::string ncu;                   ///< ncu executable; "" = find_ncu()
  std::vector<std::string> target;   ///< the program to profile: kprof path, "__runner", its options
  std::vector<std::string> metrics;  ///< --metrics list (the catalog, src/stages/ncu/metrics.hpp)
  std::string metric_set =
      kDefaultMetricSet;    ///< "kprof" (catalog only), "sections" (+ the 8 main sections), "full" (+ --set full)
  std::string report_base;  ///< output path without extension: DIR/profile -> DIR/profile.ncu-rep
  double timeout_s = kDefaultNcuTimeoutS;  ///< wall-clock limit for the profiling run, seconds
  bool show_progress = true;               ///< echo ncu's ==PROF== progress to stderr as it arrives
  /// Collect the source-level data for the hot lines: ncu's SourceCounters section (already part of
  /// "sections" and "full") and --import-source yes (the source files go into the report).
  bool source = false;
  /// With `source` and the "kprof" set: the folder of kprof's own source-counter section
  /// (stages/ncu/source_section.hpp), collected as `--section-folder F --section
  /// KprofSourceCounters` in place of ncu's stock SourceCounters. "" = the stock section.
  std::string source_section_folder;
  /// Record each result's NVTX state (`--nvtx`): `kprof run`'s one session names each version's
  /// call with an NVTX range, so the report says which version a kernel belongs to.
  bool nvtx = false;
  /// Export the report to CSV even when the profiled process failed, if ncu wrote one (a session
  /// of several versions keeps the rows of the versions before the one that failed).
  bool keep_partial = false;
  /// Called on the calling thread with the report's path once ncu wrote it: the caller reads it
  /// through ncu_report (metrics, source counters, rules, NVTX). When it returns true it read the
  /// launches' metrics, and the CSV export (another ncu process: 0.5-0.9 s on the H200) is skipped:
  /// the result's csv stays empty and metrics_from_report is set. When it returns false (no
  /// ncu_report module, an unreadable report) or is not set, the report is exported to CSV. Always
  /// called before a result that is ok(); not called when ncu wrote no report. What it throws
  /// comes out of run_ncu.
  std::function<bool(const std::string& report_path)> read_report;
  /// A standby session (flows/ncu_standby.hpp): ncu's output is held back, not echoed, while this
  /// is false; once it turns true what was held is echoed, then the rest as it comes.
  const std::atomic<bool>* hold_output = nullptr;
  /// Called about every 200 ms with the seconds since ncu started; true stops ncu as on a timeout.
  /// A standby session's limit counts from its release, so with stop_when ncu runs unbounded
  /// otherwise and timeout_s only names the limit in the message.
  std::function<bool(double elapsed_s)> stop_when;
  /// Called on ncu's thread with each complete line of its output (its own and the profiled
  /// process's, held or not), as it arrives: the standby reads its counter probe's outcome there.
  std::function<void(const std::string& line)> on_line;
};

/// What came back.
struct NcuRunResult {
  NcuFailure failure = NcuFailure::None;
  std::string message;               ///< one line: what went wrong ("" when ok)
  std::string hint;                  ///< one line: what to do
  std::vector<std::string> command;  ///< the ncu command line that was run (argv)
  std::string report_path;           ///< DIR/profile.ncu-rep when written
  std::string csv;                   ///< `ncu --import ... --csv --page raw --print-units base` output
  /// The metrics were read from the report through ncu_report (NcuRunOptions::read_report): no
  /// CSV export ran and `csv` is empty.
  bool metrics_from_report = false;
  int replay_passes = 0;              ///< largest "N passes" ncu reported for a kernel
  std::vector<std::string> profiled;  ///< kernel names ncu reported profiling
  std::vector<int> passes;            ///< replay passes of each of `profiled`, in the same order
  /// > 0: this result is one version's share of one ncu session of `kprof run` that profiled this
  /// many versions; command, wall_s and report_path are the session's (stages/ncu/session.hpp).
  int session_versions = 0;
  /// ncu and the profiled process started before the timing and waited (flows/ncu_standby.hpp);
  /// `command` is then the plain `kprof __runner` line the run stands for, and wall_s counts from
  /// the release.
  bool started_in_standby = false;
  /// The caller stopped it before it ended (`kprof run`'s environment failed meanwhile): nothing
  /// of it is a result.
  bool stopped = false;
  std::string nvtx_range;    ///< the version's NVTX range in the session's report ("" otherwise)
  double wall_s = 0;         ///< wall time of the profiling run, seconds
  double export_wall_s = 0;  ///< wall time of the CSV export, seconds (0 when metrics_from_report)
  std::string log;           ///< ncu's and the runner's output (for the details report)
  /// The profiled process's outcome document (core/outcome.hpp), written to a scratch file run_ncu
  /// names for it: its exit code and error (a failed runner's message comes from here) and, for
  /// `__session`, each version's mark ("results": {"versions"}). found == false when it wrote none.
  ChildOutcome target;
  bool ok() const { return failure == NcuFailure::None; }
};

/// A failed runner's own words: when `r` failed as RunnerFailed and its target's outcome document
/// names an error, the message is "the profiled kprof process failed (exit code N): <its error>"
/// and the hint its hint (else what interpret_ncu_output said stands).
void explain_runner_failure(NcuRunResult& r);

/// The ncu executable: $KPROF_NCU, else `ncu` on PATH, else the CUDA toolkit's bin folder, else
/// /opt/nvidia/nsight-compute/*/ncu; "" when none.
std::string find_ncu();

/// The 8 main sections of `--metrics sections` (SpeedOfLight, LaunchStats, Occupancy, ...).
const std::vector<std::string>& ncu_main_sections();

/// Builds the ncu argv (always --clock-control none: kprof never changes clocks while profiling;
/// with `source`: --import-source yes and, for the "kprof" set, --section-folder
/// source_section_folder --section KprofSourceCounters, or --section SourceCounters without a folder).
std::vector<std::string> ncu_command(const std::string& ncu, const NcuRunOptions& opts);

/// Classifies ncu's output: fills failure/message/hint, replay_passes and profiled kernel names.
/// Every "==PROF== Profiling "NAME"" line names a profiled kernel, also when a line printed during
/// its replay split its progress from its " - N passes" (N is then read from the later line; 0 when
/// none follows). Pure function (tested on canned outputs). `exit_code` is ncu's.
void interpret_ncu_output(const std::string& output, int exit_code, NcuRunResult& r);

/// Runs ncu on the target, then exports the report to CSV. Never throws for ncu failures: they are
/// in the result. Throws Error (exit 2) only for unusable options (no target).
NcuRunResult run_ncu(const NcuRunOptions& opts);

}  // namespace kprof
