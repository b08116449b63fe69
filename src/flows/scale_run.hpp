// `kprof run` scaled (docs/SCALE.md): --sweep (a grid of sizes), --gpus (a worker per GPU of this
// host) and --slurm (an sbatch array over a shared folder). The orchestrator writes the unit list,
// starts the workers (`kprof __worker`, flows/worker.hpp) or submits them, writes a result for
// every unit a worker or task left without one, and merges the results into the reports.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/sweep.hpp"
#include "flows/run/run_request.hpp"
#include "flows/slurm.hpp"
#include "flows/units.hpp"

namespace kprof {

/// A scaled run.
struct ScaleRequest {
  RunRequest run;                 ///< versions (base dimensions), options, output_dir
  nlohmann::json unit_request;    ///< each unit's request (api/run_request.hpp to_json, no scale part)
  std::vector<SweepAxis> axes;    ///< --sweep, in order
  std::vector<std::string> gpus;  ///< --gpus: CUDA_VISIBLE_DEVICES value per worker ("" = one worker as is)
  SlurmOptions slurm;
  std::vector<std::string> self_exe;  ///< the words that start kprof for the workers (self_command)
};

/// Runs it: units, workers (or Slurm), placeholders for missing results, merged reports
/// (OUT/comparison.md/.json, OUT/sweep.svg/.png with --sweep). Prints the summary. Returns 0 when
/// every unit is ok, 1 otherwise (or when the Slurm job was submitted with --no-wait and not
/// merged: 0). Throws Error (exit 2) for usage errors (checked before anything runs).
int run_scaled(const ScaleRequest& req);

/// "all" -> "0".."count-1"; "0,1,3" -> those (each a non-negative integer or a GPU UUID "GPU-...").
/// Throws Error (exit 2) for an empty or malformed list, and for "all" when `count` is 0.
std::vector<std::string> parse_gpu_list(const std::string& text, int count);

/// Reads every unit result of `plan`, merges them and writes OUT/comparison.md, OUT/comparison.json
/// and (with axes) OUT/sweep.svg/.png. Returns the merge.
MergedUnits write_merged_reports(const UnitPlan& plan);

}  // namespace kprof
