// `kprof run`: the seed's whole workflow for one kernel or several versions of it, in one process
// (Python and PyTorch imported once): environment check (stop when a required item fails), then
// per version correctness, and for correct versions timing + ncu + classification, then the
// comparison.
#pragma once

#include <string>
#include <vector>

#include "flows/profile.hpp"
#include "report/comparison.hpp"
#include "stages/env/readiness.hpp"
#include "stages/verify/check.hpp"

namespace kprof {

/// Everything `kprof run` needs.
struct RunRequest {
  std::vector<KernelSpec> versions;  ///< same dims, seed, sizes and GPU for each (only `kernel` differs)
  std::string ref;                   ///< ref.py
  CheckOptions check;
  ProfileSettings profile;
  std::string output_dir;
  double env_timeout_s = 60;  ///< per env probe
  /// --ncu-session one (true, the default): every correct version is timed first, then ncu
  /// profiles all of them in one session (flows/ncu_session.hpp); per-version (false): one ncu
  /// process per version, right after its timing.
  bool one_ncu_session = true;
  /// The environment already probed by this process (a `kprof __worker` running several sizes):
  /// used as is instead of probing again; nullptr = probe.
  const EnvReport* env = nullptr;
};

/// Outcome of the whole run.
struct RunOutcome {
  bool env_ready = false;
  std::vector<VersionRow> rows;
  std::vector<RowComparison> comparison;
  int exit_code = 0;  ///< 0: every version correct and classified; 1: env not ready or any version failed
};

/// Folder names for the versions: the kernel files' base names, made unique ("v0", "v1", or
/// "softmax", "softmax-2" when two files share a name).
std::vector<std::string> version_folder_names(const std::vector<KernelSpec>& versions);

/// Runs the workflow and writes DIR/env_check.md(.json), DIR/<version>/... and
/// DIR/comparison.md(.json). Prints a progress line per step per version with its elapsed time.
/// Throws Error for usage errors (bad options, broken ref.py: exit 2).
RunOutcome run_workflow(const RunRequest& req);

}  // namespace kprof
