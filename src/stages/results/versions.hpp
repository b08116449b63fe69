// The typed result of one kernel version (one row of `kprof run`'s comparison, the headline of a
// profile.json) and the noise-aware comparison of versions shared by `kprof run` and
// `kprof compare`. Values only: report/comparison.hpp renders and serializes them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernel/guarded_call.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/timing/noise.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

/// A version's correctness outcome.
enum class VersionStatus {
  Pass,        ///< every check passed
  Fail,        ///< a check failed (status_reason: the first failure)
  LoadError,   ///< it did not build or load (status_reason: the error's first line)
  CheckError,  ///< the check itself could not run (status_reason: the error's first line)
  NotRun,      ///< not run (status_reason: why: an earlier version hung the GPU, ref.py does not load)
  Unchecked,   ///< correctness unknown (a profile.json without its correctness.json)
};

/// "pass", "fail", "load_error", "check_error", "not_run", "unchecked" (the JSON form).
std::string version_status_id(VersionStatus s);
/// Parses version_status_id's form; nullopt for anything else.
std::optional<VersionStatus> parse_version_status(const std::string& id);

/// Whether a version reached a class.
enum class ProfileStatus {
  Classified,     ///< `cls` holds the class
  NotClassified,  ///< profiled (or tried to): profile_reason says why there is no class
  NotProfiled,    ///< never profiled (correctness failed, load failed, not run)
};

/// "classified", "not_classified", "not_profiled".
std::string profile_status_id(ProfileStatus s);
/// Parses profile_status_id's form; nullopt for anything else.
std::optional<ProfileStatus> parse_profile_status(const std::string& id);

/// One version's results, measured. Times in ms, SOL and occupancy in %, bytes in bytes.
struct VersionRow {
  std::string name;    ///< folder name (the kernel file's base name)
  std::string kernel;  ///< path
  VersionStatus status = VersionStatus::NotRun;
  std::string status_reason;  ///< the first failure / error / why not run ("" for Pass)
  bool correct() const { return status == VersionStatus::Pass; }
  bool profiled = false;                             ///< timing ran
  std::optional<double> time_ms;                     ///< median used for the comparison (see basis)
  std::optional<double> spread_ms;                   ///< its standard deviation over the timed calls
  std::vector<double> time_samples_ms;               ///< the per-call samples of time_ms (for the cross-run noise rule)
  std::optional<double> call_ms;                     ///< median call time (CUDA events)
  std::optional<double> kernel_ms;                   ///< median kernel time per call (timing.hpp reported_kernel_time)
  std::string kernel_source;                         ///< how: "gpu__time_duration" or "CUPTI" ("" when not measured)
  std::optional<double> call_std_ms, kernel_std_ms;  ///< their standard deviations over the timed calls
  std::vector<double> call_samples_ms, kernel_samples_ms;  ///< per-call samples of both
  /// The timing's integrity verdict ("pass", "warn", "fail", "not_run"; "" before timing) and the
  /// details of its failing or warning checks.
  std::string integrity;
  std::vector<std::string> integrity_issues;
  std::optional<unsigned> sm_clock_mhz;  ///< median SM clock of the timed calls (NVML), MHz
  size_t throttled_calls = 0;            ///< timed calls with a power or thermal throttle reason
  std::optional<double> rel_stderr;      ///< relative standard error of the compared time's median (fraction)
  ProfileStatus profile = ProfileStatus::NotProfiled;
  Bottleneck cls = Bottleneck::NotClassified;                 ///< set when profile == Classified
  std::string profile_reason;                                 ///< why not classified (NotClassified), "" otherwise
  std::optional<double> sm_sol, mem_sol, achieved_occupancy;  ///< %, leading kernel (ncu)
  std::optional<double> dram_bytes;  ///< dram__bytes_read.sum + dram__bytes_write.sum of the leading kernel, bytes
  std::string leading_stall;         ///< ncu's stall reason name ("long_scoreboard"), "" when none
  std::optional<double> leading_stall_pct;     ///< its share of the cycles between two issued instructions, %
  std::optional<double> pct_of_bound;          ///< time bound / measured time, % (analysis/bound.hpp)
  std::optional<double> bound_ms;              ///< the time bound, ms
  std::optional<double> max_speedup;           ///< measured / bound: "at most Y x faster"
  std::string bound_basis;                     ///< what the bound binds on ("memory at the achievable 4.3 TB/s")
  std::string top_finding;                     ///< the finding with the largest gain (its title), "" when none
  std::optional<double> top_finding_gain_pct;  ///< its estimated gain, % of the kernel's time
  std::string folder;                          ///< DIR/<name>/
  std::string note;                            ///< a caveat for this row (e.g. its buffers differ from the first's)
  std::string
      build;  ///< how `kprof run --build` got its .so: "compiled (2.1 s)", "up to date", "from cache"; "" when not built
  std::map<std::string, double>
      steps_s;  ///< seconds of each step of `kprof run`: build (on the pool, overlapping others), load, check, profile
  std::optional<FaultKind> fault;  ///< the kind of kernel fault that failed the check (timeout, kernel/launch error)
};

/// Fills the ncu columns of `row` (class, SOL, occupancy, DRAM bytes, stall, bound, top finding)
/// from a call's verdict and its metric table; `classified` false leaves profile NotClassified
/// with `failure` as the reason.
void fill_ncu_columns(VersionRow& row, const CallVerdict* verdict, const MetricTable* table, bool classified,
                      const std::string& failure);

/// Fills the timing columns of `row` (profiled, call and kernel medians, standard deviations and
/// per-call samples) from a timing result.
void fill_timing_columns(VersionRow& row, const TimingResult& t);

/// Sets time_ms / spread_ms / time_samples_ms of every profiled row from its kernel time (CUPTI)
/// when every profiled row has one, else from its call time. Returns the basis in words.
std::string choose_time_basis(std::vector<VersionRow>& rows);

/// How a row compares with the baseline.
enum class Change { Baseline, Faster, Slower, Same, Inconclusive, NotComparable };

/// "baseline", "faster", "slower", "same (within noise)", "inconclusive", "n/a".
std::string change_name(Change c);
/// "baseline", "faster", "slower", "same", "inconclusive", "n/a" (the JSON form).
std::string change_id(Change c);

/// When two versions are "the same". With per-call samples on both sides (the usual case): the
/// bootstrap interval of the ratio of medians decides (stages/timing/noise.hpp noise_verdict),
/// with kWithinRunMargins inside one `kprof run` and kCrossRunMargins across runs (`kprof compare`,
/// floor_frac > 0). Without samples (an old comparison.json): the difference of medians against the
/// larger of the two standard deviations plus floor_frac of the baseline's median.
struct NoiseRule {
  double floor_frac = 0;  ///< share of the baseline median added to the noise (0.02 = 2%): the cross-run rule
};

/// kprof compare's floor: 2% of the baseline median. Source: kprof's rule; two runs of one kernel
/// on one H200 on different days differ by about 1% (docs/gpu-runs.md), so 2% is above that.
inline constexpr double kCrossRunNoiseFloor = 0.02;

/// Derived comparison of one row against the baseline (the first row with a time).
struct RowComparison {
  std::optional<double> speedup;  ///< base time / this time (> 1: faster)
  Change change = Change::NotComparable;
  std::optional<double> noise_ms;  ///< the noise the rule allowed for this row, ms (the rule without samples)
  /// The statistical verdict against the baseline (unset without samples on both sides).
  std::optional<NoiseVerdict> verdict;
  /// Against the fastest correct version, for the others (unset without samples).
  std::optional<NoiseVerdict> verdict_vs_fastest;
  bool fastest = false;  ///< the fastest correct version (smallest median)
  /// A correct version other than the fastest that the measurement cannot rank below it (the
  /// verdict against the fastest is "same" or "inconclusive"): as fast, as far as it can tell.
  bool tied_with_fastest = false;
};

/// Compares every row with the first row that has a time under `rule`; marks the fastest correct
/// row and every other correct row within noise of it.
std::vector<RowComparison> compare_versions(const std::vector<VersionRow>& rows, NoiseRule rule = {});

}  // namespace kprof
