// The typed request of `kprof run`: the kernel and profile parts (api/requests.hpp), run's own
// options, the scale part (--sweep, --gpus, --slurm and its options) and the decision part
// (--decide and its options). What the command line parses into, what `kprof run` hands each
// `__worker` in units.json (one request in: the worker parses no words), with validate() (every
// part's ranges and the table's needs/excludes rules) and JSON in and out with kprof's version.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "api/defaults.hpp"
#include "api/options.hpp"
#include "api/requests.hpp"
#include "stages/env/env_check.hpp"
#include "stages/timing/decision.hpp"
#include "stages/timing/rounds.hpp"

namespace kprof::api {

/// --slurm and its options (flows/slurm.hpp SlurmOptions is built from it).
struct SlurmRequest {
  bool enabled = false;                         ///< --slurm
  std::string partition;                        ///< --partition ("" = the cluster's default)
  std::string gres = kDefaultSlurmGres;         ///< --gres per array task ("none" = no --gres line)
  std::string time;                             ///< --time per array task ("" = the partition's default)
  int max_parallel = kDefaultSlurmMaxParallel;  ///< --max-parallel: array tasks running at once
  int units_per_task = 0;                       ///< --units-per-task (0 = the number of versions)
};

/// `kprof run`.
struct RunCommandRequest {
  KernelRequest k;
  ProfileRequest p;
  double env_timeout_s = kDefaultEnvProbeTimeoutS;                             ///< --env-timeout, s
  std::string ncu_session = option_row("run", "--ncu-session").default_value;  ///< one | per-version
  std::vector<std::string> sweep;                                              ///< --sweep NAME=..., in order
  std::string gpus;                                                            ///< --gpus all|0,1,...
  SlurmRequest slurm;                                                          ///< --slurm and its options
  bool no_wait = false;                                                        ///< --no-wait
  /// --decide and its options; --min-gain in percent; --decide-time call|kernel.
  bool decide = false, confirm = false, decide_ncu = false;
  int rounds = kDefaultRounds;
  double decide_budget_s = kDefaultDecideBudgetS;
  int calls_per_round = kDefaultCallsPerSlot;
  double min_gain_pct = 100 * kDefaultMinGain;
  std::string decide_time = option_row("run", "--decide-time").default_value;  ///< call | kernel
  /// The parent's host, in the request each `__worker` receives (units.json): the worker takes it
  /// (core/host_json.hpp adopt_host). Empty (the default) for `kprof run` itself.
  Host host;
};

/// The options of `r` given, as far as values tell (each differs from its default; --gpu when
/// the GPU is not the default one): what validate() checks the table's rules against.
std::set<std::string> given_run_options(const RunCommandRequest& r);

/// Whether any scale option is set (--sweep, --gpus, --slurm): the run goes through units.
bool is_scaled(const RunCommandRequest& r);

/// The request without its scale part (--sweep, --gpus, --slurm and its options, --no-wait): what
/// each unit of a scaled run runs.
RunCommandRequest without_scale(RunCommandRequest r);

/// The checks of run's own, scale and decision parts: ranges and choices of their rows and the
/// needs/excludes rules (--time needs --slurm, --decide excludes the scale options, --gpus
/// excludes --gpu and --slurm, ...) over `given` (the command line passes the options it saw;
/// every other face given_run_options). The kernel and profile parts are checked by their own
/// validate(). Throws Error (exit 2).
void validate(const RunCommandRequest& r, const std::set<std::string>& given);
/// validate(r, given_run_options(r)), and the kernel and profile parts.
void validate(const RunCommandRequest& r);

/// JSON of the request: the kernel and profile parts' fields, run's own under their table names
/// ("slurm": {...}, "decide": {...}), {"command": "run", "kprof_version"}. The reader takes it
/// back (missing fields keep their defaults); Error (exit 2) for a field of another type.
nlohmann::json to_json(const RunCommandRequest& r);
RunCommandRequest run_request_from_json(const nlohmann::json& j);

}  // namespace kprof::api
