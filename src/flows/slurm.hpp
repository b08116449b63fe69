// The Slurm part of `kprof run --slurm` (docs/SCALE.md): an sbatch array script whose tasks each
// run one shard of the unit list (`kprof __worker`), its submission, the wait (squeue), and a
// result for every unit a failed, cancelled or timed-out task left without one.
#pragma once

#include <map>
#include <string>

#include "api/defaults.hpp"
#include "flows/units.hpp"

namespace kprof {

/// The Slurm options of `kprof run --slurm`.
struct SlurmOptions {
  bool enabled = false;
  std::string partition;                             ///< --partition ("" = the cluster's default)
  std::string gres = api::kDefaultSlurmGres;         ///< --gres per array task ("none" = no --gres line)
  std::string time;                                  ///< --time per array task ("" = the partition's default)
  int max_parallel = api::kDefaultSlurmMaxParallel;  ///< --max-parallel: array tasks running at once (%K)
  int units_per_task = 0;  ///< --units-per-task (0 = the number of versions: one size per task)
  bool wait = true;        ///< false: --no-wait (submit and return)
  double poll_s = 10;      ///< seconds between squeue polls (KPROF_SLURM_POLL_S)
};

/// Number of array tasks for `run_units` units: ceil(run_units / per_task), per_task =
/// opts.units_per_task or, when 0, `versions` (one size per task). At least 1.
int slurm_task_count(size_t run_units, size_t versions, const SlurmOptions& opts);

/// The sbatch script: `#SBATCH --array=0-(tasks-1)%max_parallel`, job name, partition, gres, time,
/// --chdir plan.cwd, one log per task in OUT/slurm/; the task runs `kprof __worker --units UNITS
/// --shard $SLURM_ARRAY_TASK_ID/tasks` (with --one-gpu when a GPU is requested) in the background,
/// records its exit status in OUT/slurm/task-<id>.exit, and on SIGTERM (time limit, scancel)
/// writes OUT/slurm/task-<id>.term and stops the worker. The worker's outcome document
/// (core/outcome.hpp: the units it wrote, rewritten after each) is OUT/slurm/task-<id>.outcome.json:
/// what kprof counts while it waits and reads when the job has ended.
std::string sbatch_script(const UnitPlan& plan, const std::string& units_path, const SlurmOptions& opts, int tasks,
                          const std::vector<std::string>& kprof_exe);

/// Parses `sbatch --parsable` output ("123" or "123;cluster"): the job id. Throws Error (exit 1)
/// with sbatch's message when there is none.
std::string parse_sbatch_job_id(const std::string& out);

/// Parses `sacct -n -P -X -j JOB --format=JobID,State` lines ("123_4|TIMEOUT", "123_[5-7%2]|PENDING"):
/// array task index -> state (the first word: "CANCELLED by 0" -> "CANCELLED").
std::map<int, std::string> parse_sacct_states(const std::string& out, const std::string& job_id);

/// The status and reason of the units a task left without a result: TIMEOUT -> timeout, PENDING /
/// RUNNING / unknown -> not_run, anything else -> crash. `term_file` tells that the task got
/// SIGTERM (time limit or scancel): timeout when sacct cannot say, and also when sacct says
/// COMPLETED (a task whose script trapped the time limit's SIGTERM and exited was read back as
/// COMPLETED on a loaded machine).
std::pair<UnitStatus, std::string> missing_unit_status(const std::string& state, bool term_file,
                                                       const std::string& time);

/// Whether OUT/slurm/job.json names a job still queued or running (squeue): its tasks read
/// OUT/units.json, so a second call must not rewrite it.
bool slurm_job_queued(const std::string& out);

/// Writes the script to OUT/slurm/kprof.sbatch, submits it (or, when OUT/slurm/job.json names a
/// job still queued or running, waits for that one instead), and with opts.wait waits for the job
/// (a progress line per change), then writes the results of units its tasks left without one.
/// Returns false after --no-wait (nothing to merge yet). Throws Error (exit 1) when sbatch fails,
/// (exit 2) when sbatch is not on PATH.
bool run_slurm(const UnitPlan& plan, const std::string& units_path, const SlurmOptions& opts,
               const std::vector<std::string>& kprof_exe);

}  // namespace kprof
