// The files of a scaled run (docs/SCALE.md): the unit list OUT/units.json every worker reads, one
// result file per unit OUT/units/<version>/<key>.json, which units still have to run (resume), and
// how they are split into shards (one per GPU, or one per Slurm array task).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/sweep.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/results/units.hpp"

namespace kprof {

/// OUT/units.json: everything a worker needs to run its shard, on this host or a cluster node.
struct UnitPlan {
  std::vector<Unit> units;           ///< every unit of the run (versions x grid points), version-major within a point
  std::vector<std::string> run_ids;  ///< the units this submission runs (Unit::id), fixed when it is written
  nlohmann::json request;            ///< the run's request without its scale part (api/run_request.hpp)
  std::string cwd;                   ///< the folder relative paths in the request are relative to
  std::string out;                   ///< the output folder, absolute
  std::vector<std::string> axes;     ///< the swept dimensions, in order
  bool ncu = true;                   ///< ncu requested (not --no-ncu): a correct unit without class is not ok
};

/// The units of `versions` (named by version_folder_names) at every grid point: point-major, the
/// versions of one point together in their order (one worker runs them in one `kprof run`).
std::vector<Unit> make_units(const std::vector<KernelSpec>& versions, const std::vector<SweepPoint>& grid);

/// Writes / reads OUT/units.json (schema_version 2). read throws Error (exit 2) naming the file when
/// it is missing or not a unit list.
void write_unit_plan(const UnitPlan& plan, const std::string& path);
UnitPlan read_unit_plan(const std::string& path);

/// OUT/units/<version>/<key>.json.
std::string unit_result_path(const std::string& out, const Unit& u);
/// The unit's result, or nullopt when there is none. An unreadable file counts as none (with a
/// warning naming it): the unit runs again.
std::optional<UnitResult> read_unit_result(const std::string& out, const Unit& u);
/// Writes the result atomically (write_file_atomic).
void write_unit_result(const std::string& out, const UnitResult& r);

/// The units of `units` without a final result (unit_result_is_final): what a rerun runs.
std::vector<Unit> pending_units(const std::string& out, const std::vector<Unit>& units);

/// The units of `plan.run_ids`, in plan order.
std::vector<Unit> units_to_run(const UnitPlan& plan);

/// Shard `k` of `n` (0 <= k < n) of `units`: whole points dealt round-robin when there are at least
/// `n` points (each shard builds and profiles a point's versions together), else single units dealt
/// round-robin (8 versions of one size over 2 GPUs: 4 each). Every unit is in exactly one shard.
/// Throws Error (exit 2) for k or n out of range.
std::vector<Unit> shard_of(const std::vector<Unit>& units, int k, int n);

/// Parses "K/N" (--shard). Throws Error (exit 2) unless 0 <= K < N.
std::pair<int, int> parse_shard(const std::string& text);

/// A result the worker could not write itself (its process or Slurm task ended first):
/// source Orchestrator (a rerun runs the unit again), row named after the version.
UnitResult placeholder_result(const Unit& u, UnitStatus status, const std::string& reason);

}  // namespace kprof
