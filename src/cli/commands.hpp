// Each kprof command registers itself on the CLI11 app. A registrar adds its subcommand with
// every option documented (--help), and on parse stores in `action` the function that runs it;
// main() calls that function and turns its result / Error into the exit code (core/error.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace kprof {

/// The command to run after parsing; returns the process exit code (0, 1 or 2).
using CommandAction = std::function<int()>;

void register_env(CLI::App& app, CommandAction& action);      ///< kprof env      (cmd_env.cpp)
void register_clocks(CLI::App& app, CommandAction& action);   ///< kprof clocks   (cmd_clocks.cpp)
void register_check(CLI::App& app, CommandAction& action);    ///< kprof check    (cmd_check.cpp)
void register_profile(CLI::App& app, CommandAction& action);  ///< kprof profile  (cmd_profile.cpp)
void register_build(CLI::App& app, CommandAction& action);    ///< kprof build    (cmd_build.cpp)
void register_analyze(CLI::App& app, CommandAction& action);  ///< kprof analyze  (cmd_analyze.cpp)
void register_run(CLI::App& app, CommandAction& action);      ///< kprof run      (cmd_run.cpp)
void register_compare(CLI::App& app, CommandAction& action);  ///< kprof compare  (cmd_compare.cpp)
/// The public commands above, in --help's order (env, clocks, check, profile, build, analyze, run,
/// compare), as cli_main registers them (entry.cpp); the option table's tests register the same.
void register_public_commands(CLI::App& app, CommandAction& action);
/// --wall-timeout-s of the command parsed (seconds, 0: none; api/options.cpp), which every public
/// command that has the row binds to (register_public_commands); cli_main enforces it.
double& wall_timeout_s();
/// kprof mcp (cmd_mcp.cpp): listed after compare; the server is the Python package's
/// (python/kprof/__main__.py), the executable's command says so (exit 2).
void register_mcp(CLI::App& app, CommandAction& action);
void register_runner(CLI::App& app, CommandAction& action);  ///< kprof __runner (hidden; what ncu profiles)
void register_probe(CLI::App& app, CommandAction& action);   ///< kprof __probe  (hidden; env's ncu counter probe)
/// kprof __check (hidden; the sanitizer's child: a check request in, cmd_check.cpp)
void register_check_child(CLI::App& app, CommandAction& action);
void register_worker(CLI::App& app, CommandAction& action);   ///< kprof __worker (hidden; a shard of a scaled run)
void register_options(CLI::App& app, CommandAction& action);  ///< kprof __options (hidden; the option table)

}  // namespace kprof
