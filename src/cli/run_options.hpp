// The options of `kprof run`, shared by the command itself and by `kprof __worker`, which parses
// the same words again from units.json (so a worker runs exactly the options the user gave).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "api/options.hpp"
#include "cli/kernel_options.hpp"
#include "flows/run/run_flow.hpp"
#include "flows/scale_run.hpp"

namespace kprof {

/// Parsed `kprof run` options, the scale options included.
struct RunCmd {
  KernelCliOptions k;
  ProfileCliOptions p;
  double env_timeout_s = kDefaultEnvProbeTimeoutS;                                  ///< --env-timeout
  std::string ncu_session = api::option_row("run", "--ncu-session").default_value;  ///< one | per-version
  std::vector<std::string> sweep;                                                   ///< --sweep NAME=..., in order
  std::string gpus;                                                                 ///< --gpus all|0,1,...
  SlurmOptions slurm;                                                               ///< --slurm and its options
  bool no_wait = false;                                                             ///< --no-wait
  /// --decide and its options (RunRequest::decide); --min-gain in percent.
  bool decide = false, confirm = false, decide_ncu = false;
  int rounds = kDefaultRounds;
  double decide_budget_s = kDefaultDecideBudgetS;
  int calls_per_round = kDefaultCallsPerSlot;
  double min_gain_pct = 100 * kDefaultMinGain;
  std::string decide_time = api::option_row("run", "--decide-time").default_value;  ///< call|kernel
};

/// Adds every `kprof run` option to `sub` (kernel, profile, env timeout, scale options).
void add_run_options(CLI::App* sub, RunCmd& c);

/// The RunRequest of the parsed options (versions, check and profile settings, output folder).
RunRequest make_run_request(const RunCmd& c);

/// Whether any scale option was given (--sweep, --gpus, --slurm): the run goes through units.
bool is_scaled(const RunCmd& c);

/// Checks the scale options together: Slurm options need --slurm, --gpus and --slurm exclude each
/// other, --gpus excludes --gpu, --decide excludes every scale option. Throws Error (exit 2).
void check_scale_options(const CLI::App* sub, const RunCmd& c);

/// `words` (the arguments after "run") without the scale options and the output folder (-o,
/// --output-dir, --sweep, --gpus, --slurm, --partition, --gres, --time, --max-parallel,
/// --units-per-task, --no-wait; as "--opt VALUE" or "--opt=VALUE"): what a worker parses again.
std::vector<std::string> strip_scale_args(const std::vector<std::string>& words);

/// Parses `words` (arguments after "run") as `kprof run` does, in a fresh parser. Throws Error
/// (exit 2) for words it rejects.
RunCmd parse_run_words(const std::vector<std::string>& words);

/// The command line main() parsed (after the nvcc-flag rewrite), for `kprof run` to hand its words
/// to workers.
void set_invocation(const std::vector<std::string>& argv);
const std::vector<std::string>& invocation();

}  // namespace kprof
