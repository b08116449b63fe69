// The options of `kprof run`, registered from the option table into the typed request
// (api/run_request.hpp), which `kprof run` hands each `kprof __worker` as JSON in units.json.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "api/run_request.hpp"
#include "cli/kernel_options.hpp"
#include "flows/run/run_flow.hpp"
#include "flows/scale_run.hpp"

namespace kprof {

/// Parsed `kprof run` options, the scale and decision parts included.
using RunCmd = api::RunCommandRequest;

/// Adds every `kprof run` option to `sub` (kernel, profile, env timeout, scale options).
void add_run_options(CLI::App* sub, RunCmd& c);

/// The RunRequest of the parsed options (versions, check and profile settings, output folder).
RunRequest make_run_request(const RunCmd& c);

/// Checks run's own, scale and decision options (api::validate of the request) over the options
/// given on the command line and those set in `c`: Slurm options need --slurm, --gpus and --slurm
/// exclude each other, --gpus excludes --gpu, --decide excludes every scale option, the --decide
/// options need --decide. Throws Error (exit 2).
void check_scale_options(const CLI::App* sub, const RunCmd& c);

/// Parses `words` (arguments after "run") as `kprof run` does, in a fresh parser, with its checks
/// (tests build requests with it). Throws Error (exit 2) for words it rejects.
RunCmd parse_run_words(const std::vector<std::string>& words);

/// flows/slurm.hpp's options of the request's --slurm part (--no-wait: no waiting).
SlurmOptions slurm_options(const RunCmd& c);

}  // namespace kprof
