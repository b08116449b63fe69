// The kprof command line as a function: the executable (cli/main.cpp) and the Python package's
// extension module (cli/module.cpp) both run it, so both have one parser, one dispatch and the
// same exit codes (0 success, 1 the checked thing failed, 2 usage or input error).
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// The end of a parse without running: `code` 0 (a command was recognised, or --help/--version)
/// or 2 (usage error), with kprof's message and hint for the error.
struct CliOutcome {
  int code = 0;
  std::string message{};
  std::string hint{};
  std::string command{};  ///< the command parsed ("run"), "" when none
  /// Where the command writes its reports: its `-o` value, else the option's default
  /// ("profile_out", "compare_out", "analyze_out"; env: the Markdown report's path). The Python API
  /// reads the JSON reports from there, so no default is written twice.
  std::string output{};
};

/// Runs the command line `argv` (argv[0] is the program's name; the rest as a shell gives them:
/// `{"kprof", "run", "a.cu", "--N=1024"}`) and returns its exit code. Prints results on stdout,
/// progress and errors on stderr. A finished public command leaves the process through _Exit
/// (device/cuda.hpp exit_now: no teardown may wait on a hung kernel), so call it only in a
/// process that is kprof's own (the executable, or `python -m kprof`). Never throws.
int cli_main(const std::vector<std::string>& argv);

/// True for the hidden commands (`__runner`, `__session`, `__probe`, `__worker`): ncu profiles
/// the first three, and its injection library writes its results from the process's exit handlers,
/// so these end through exit(), never _Exit (nor, in the Python package, Python's finalization).
/// Also under $KPROF_FULL_EXIT (a `kprof check` that compute-sanitizer runs, for the same reason:
/// flows/sanitize.hpp).
bool ends_through_exit(const std::vector<std::string>& argv);

/// Parses `argv` as cli_main() would and runs nothing (no GPU, no file written, nothing printed):
/// finds unknown commands and options, bad values and misplaced options before any work. The
/// checks that need the files (does the kernel exist, does ref.py load) run in the command itself.
/// Never throws.
CliOutcome cli_check(const std::vector<std::string>& argv);

}  // namespace kprof
