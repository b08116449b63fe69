// The unit of scaled work (`kprof run --sweep / --gpus / --slurm`, docs/SCALE.md): one kernel
// version x one set of dimensions on one GPU, and its typed result (one file per unit, written by
// the worker that ran it). Values only: report/units_report.hpp serializes and renders them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stages/results/versions.hpp"

namespace kprof {

/// What became of one unit.
enum class UnitStatus {
  Ok,                  ///< correct, timed and (unless --no-ncu) classified
  Wrong,               ///< the check failed (wrong output, a write out of bounds, a modified const input)
  BuildError,          ///< the .so could not be built (--build)
  LoadError,           ///< the kernel could not be loaded, or its options are wrong for it (input error)
  Timeout,             ///< a call hung (the GPU was left unusable), or the Slurm task ran past --time
  Crash,               ///< a kernel fault that lost the context, or the worker process died in this unit
  ProfileUnavailable,  ///< correct, but ncu could not classify it (no counters, driver resource busy, ...)
  NotRun,              ///< not run yet: the environment was not ready (no GPU), the task never started
};

/// "ok", "wrong", "build_error", "load_error", "timeout", "crash", "profile_unavailable", "not_run".
std::string unit_status_id(UnitStatus s);
/// Parses unit_status_id's form; nullopt for anything else.
std::optional<UnitStatus> parse_unit_status(const std::string& id);

/// One unit of work: which version (its folder name and file) at which dimensions.
struct Unit {
  std::string version;                                    ///< the version's name in the run (version_folder_names)
  size_t version_index = 0;                               ///< its position among the run's kernel files
  std::string kernel;                                     ///< the kernel file as given
  std::vector<std::pair<std::string, std::string>> dims;  ///< every dimension, name -> value text, in order
  std::string key;                                        ///< dims_key of `dims` ("N=1024_D=64"): names the result file
  /// "<version>/<key>": the unit's id (units/<id>.json holds its result).
  std::string id() const { return version + "/" + key; }
};

/// Where a unit ran: the GPU and the tools. Empty strings / unset values are unknown.
struct UnitPlace {
  std::string host;
  std::string gpu_name;                     ///< "NVIDIA H200"
  std::string gpu_uuid;                     ///< "GPU-5f0c...": tells GPUs of one model apart
  std::string gpu_visible;                  ///< CUDA_VISIBLE_DEVICES the worker ran under ("" when not set)
  std::string driver;                       ///< NVIDIA driver version, "580.159.04"
  std::string ncu_version;                  ///< "2025.3.1.0"
  std::optional<unsigned> sm_mhz, mem_mhz;  ///< clocks when the environment was probed, MHz (NVML)
  std::optional<unsigned> sm_max_mhz;       ///< the SM clock's maximum, MHz (NVML)
};

/// Who wrote a result: the worker that ran the unit, or the orchestrator for a unit whose worker
/// (or Slurm task) ended without writing one.
enum class ResultSource { Worker, Orchestrator };

/// The typed result of one unit: the same row `kprof run`'s comparison has, plus the unit's status
/// and where it ran.
struct UnitResult {
  Unit unit;
  UnitStatus status = UnitStatus::NotRun;
  std::string reason;  ///< why not ok, one line ("" for ok)
  UnitPlace place;
  VersionRow row;  ///< the version's row at these dimensions (name = the version)
  ResultSource source = ResultSource::Worker;
  std::string date;  ///< when the result was written (now_string)
};

/// The unit status of a row `kprof run` produced. `ncu_requested` false (--no-ncu): a correct,
/// timed row is ok without a class. `build_failed` tells a build error from another load error.
UnitStatus unit_status_of(const VersionRow& row, bool ncu_requested, bool build_failed);

/// Whether a rerun keeps `r` (resume): results a worker wrote for a unit that ran; NotRun results
/// and the orchestrator's placeholders (a worker or task that died) are run again.
bool unit_result_is_final(const UnitResult& r);

/// The results of one grid point (same key), in version order: what one `kprof run` would compare.
struct PointResults {
  std::string key;
  std::vector<std::pair<std::string, std::string>> dims;
  std::vector<UnitResult> units;
};

/// Groups results by point: points in first-seen order of `results`, units in the order given.
std::vector<PointResults> group_by_point(const std::vector<UnitResult>& results);

/// One point of the merged report: its units compared as `kprof run` compares versions.
struct MergedPoint {
  PointResults point;
  std::vector<RowComparison> comparison;  ///< one per unit, against the point's first version
  std::string time_basis;                 ///< choose_time_basis's words
};

/// Every unit result merged: per point the comparison, plus the warnings for the header.
struct MergedUnits {
  std::vector<MergedPoint> points;
  std::vector<std::string> warnings;  ///< GPUs of different models / drivers, units without result
  size_t total = 0, ok = 0;           ///< units, and units with status ok
};

/// Merges `results` (any order; sorted by the order of `units`, the run's unit list, when given):
/// per point the rows compared (within-run noise rule), and a warning when the units ran on GPUs
/// of different models or drivers (their times do not compare) or when a unit has no result.
MergedUnits merge_unit_results(const std::vector<Unit>& units, const std::vector<UnitResult>& results);

}  // namespace kprof
