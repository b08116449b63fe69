// Running external programs (nvcc, ncu, python probes) with a time limit.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kprof {

/// What a finished (or stopped) child process left behind.
struct ProcessResult {
  int exit_code = -1;      ///< exit status; -1 when it did not exit normally
  int term_signal = 0;     ///< signal that ended it, 0 if none
  bool timed_out = false;  ///< true when kprof killed it after `timeout_s`
  bool cancelled = false;  ///< true when kprof killed it because ProcessOptions::cancel became true
  bool not_found = false;  ///< true when the program could not be started (exec failed)
  std::string out;         ///< everything it wrote to stdout
  std::string err;         ///< everything it wrote to stderr
  double wall_s = 0.0;     ///< wall time in seconds
  /// stdout and stderr together (stdout first), for messages and pattern searches.
  std::string combined() const { return out + err; }
  bool ok() const { return !timed_out && !cancelled && !not_found && exit_code == 0; }
};

/// Options for run_process.
struct ProcessOptions {
  double timeout_s = 60.0;  ///< wall-clock limit in seconds; <= 0 means none
  /// Extra environment variables (added to / replacing the parent's). $KPROF_OUTCOME_FILE is never
  /// passed on: a child writes an outcome document only where this names one (core/outcome.hpp).
  std::map<std::string, std::string> env;
  std::string cwd;  ///< working folder; empty keeps the parent's
  /// When set, the child's stdout goes to this file (created or truncated) instead of
  /// ProcessResult::out: for outputs too large to hold in memory (a 200 MB ncu export).
  std::string stdout_file;
  /// Called for every complete line the child writes (stdout and stderr), as it arrives;
  /// `is_err` tells which stream. Used to show ncu's progress live.
  std::function<void(const std::string& line, bool is_err)> on_line;
  /// Called with raw output as it arrives (no line buffering): ncu draws its replay progress
  /// ("0%....50%....100%") without newlines.
  std::function<void(const std::string& chunk, bool is_err)> on_chunk;
  /// Called about every 200 ms while the child runs, with the elapsed seconds (for heartbeats).
  std::function<void(double elapsed_s)> on_tick;
  /// When set and it turns true (another thread), the process group is stopped as on a timeout
  /// (within about 200 ms) and ProcessResult::cancelled is set: a run that ends early stops its builds.
  const std::atomic<bool>* cancel = nullptr;
};

/// Runs `argv` (argv[0] searched on PATH) and waits for it, at most `opts.timeout_s` seconds;
/// on timeout the whole process group gets SIGTERM, then SIGKILL after 2 s. The child gets SIGTERM
/// (PR_SET_PDEATHSIG) if kprof ends before it: nothing kprof started outlives it.
/// Never throws for a failing child: inspect the result. Throws std::invalid_argument for an
/// empty argv.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opts = {});

/// Shell-quotes one argument for display ("a b" -> 'a b'), so a printed command can be pasted.
std::string shell_quote(const std::string& arg);

/// Joins argv as a copy-pasteable shell command line.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace kprof
