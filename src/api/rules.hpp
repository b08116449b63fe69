// The cross-option rules of the option table (api/options.hpp rows' `needs` and `excludes`),
// enforced here once for every face: the command line (cli/ passes the options it saw), the typed
// requests' validate() (the options whose value differs from the default) and so the Python API,
// the MCP tools and every child that receives a request as JSON.
#pragma once

#include <set>
#include <string>

namespace kprof::api {

/// Checks the rows of `command` against the options `given` (long flags, "--rounds"): an option
/// whose row `needs` another that is not given ("--time is an option of --slurm"), or two options
/// one of whose rows `excludes` the other ("--lock excludes --reset"; the scale options and
/// --decide, --gpus and --gpu, --gpus and --slurm with their own messages). An alias is checked
/// under its own name. Throws Error (exit 2) with a hint naming what to add or drop.
void check_option_rules(const std::string& command, const std::set<std::string>& given);

}  // namespace kprof::api
