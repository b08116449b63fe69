// `kprof __worker`: runs one shard of a scaled run's units (docs/SCALE.md) through the run
// workflow (flows/run/run_flow.hpp): the environment probed once, the versions of one size together in
// one `kprof run` (built once, profiled in one ncu session where the run workflow does so), one
// result file per unit. By default the worker supervises a child worker so that a unit that kills
// its process costs only its own result (status crash): the units the child left without a result
// run again one per process.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>

#include "core/outcome.hpp"
#include "flows/run/run_flow.hpp"
#include "flows/units.hpp"

namespace kprof {

/// What one worker runs.
struct WorkerRequest {
  RunRequest base;         ///< from plan.request: every kernel file of the run, the shared options
  UnitPlan plan;           ///< units.json
  std::string units_path;  ///< its path (the child worker reads it again)
  int shard = 0, shards = 1;
  std::string only;                   ///< run only this unit id ("" = the whole shard); used for isolation
  bool in_process = false;            ///< run the units in this process (the child); false = supervise a child
  std::vector<std::string> self_exe;  ///< the words that start kprof (self_command), for the child
  /// Called as each unit is reached, before it runs (a test seam: the orchestration tests make a
  /// unit abort or stall its worker through it, see cli/cmd_worker.cpp). Empty: nothing.
  std::function<void(const Unit&)> before_unit;
};

/// Exit code of a worker whose GPU was left unusable (a hung kernel or a lost context): its
/// supervisor runs the units left without a result in fresh processes.
inline constexpr int kWorkerGpuLost = 3;

/// Runs the worker. Returns 0 when every unit of the shard is ok, 1 when one is not, kWorkerGpuLost
/// (in-process only) after a hung kernel. Throws Error (exit 2) for a bad plan or shard.
int run_worker(const WorkerRequest& req);

/// The units a worker wrote a result for, handed to its parent in its outcome document
/// (core/outcome.hpp: "results": {"units": [{"id", "status"}]}), rewritten after each unit
/// (checkpoint_outcome) so that a worker that dies leaves the list of the units before.
class UnitLog {
 public:
  /// Writes `r` into `out` (write_unit_result) and adds it to the list.
  void add(const std::string& out, const UnitResult& r);
  /// Adds the units a child worker's outcome names (their results are the child's).
  void adopt(const ChildOutcome& child);

 private:
  void publish();
  nlohmann::json units_ = nlohmann::json::array();
};

/// The ids of the units a worker's outcome document names as written; none when it wrote none.
std::set<std::string> units_written(const ChildOutcome& o);

/// Where a unit ran, from this process's environment probe (GPU name, UUID, driver, ncu version,
/// clocks) and CUDA_VISIBLE_DEVICES.
UnitPlace unit_place(const EnvReport& env);

/// The lock id of the GPU `place` names: its UUID, else "visible-" + CUDA_VISIBLE_DEVICES, else
/// "index-" + `gpu` (core/file_lock.hpp gpu_lock_path).
std::string gpu_lock_id(const UnitPlace& place, int gpu);

}  // namespace kprof
