// What `kprof run` is asked (RunRequest) and what it returns (RunOutcome), apart from the flow
// (flows/run/run_flow.hpp) so that the run's pieces (run_steps, run_workflow, scale_run) include the
// request, not the flow that includes them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "flows/profile_settings.hpp"
#include "kernel/kernel_spec.hpp"
#include "report/comparison.hpp"
#include "stages/results/decision.hpp"
#include "stages/env/env_check.hpp"
#include "stages/env/readiness.hpp"
#include "stages/ncu/session.hpp"
#include "stages/verify/check.hpp"

namespace kprof {

/// `kprof run --decide` (flows/run/run_decide.cpp): every correct version kept loaded, then timed in
/// interleaved rounds with the baseline's A/A arm, one keep / revert / inconclusive per candidate.
struct DecideRequest {
  bool enabled = false;  ///< --decide
  RoundOptions rounds;   ///< --rounds, --decide-budget, --calls-per-round
  DecisionRule rule;     ///< --min-gain
  bool confirm = false;  ///< --confirm: a second, independent set of rounds must agree
  /// --decide-ncu: each version also gets the usual timing and ncu profile before the rounds
  /// (default: timing only, the rounds' call times are the versions' times).
  bool ncu = false;
  /// --decide-time kernel: the rounds time each call's kernels (CUPTI records, one session over the
  /// rounds) instead of the call between CUDA events (--decide-time call, the default).
  bool kernel_time = false;
};

/// Everything `kprof run` needs.
struct RunRequest {
  std::vector<KernelSpec> versions;  ///< same dims, seed, sizes and GPU for each (only `kernel` differs)
  std::string ref;                   ///< ref.py
  CheckOptions check;
  ProfileSettings profile;
  std::string output_dir;
  double env_timeout_s = kDefaultEnvProbeTimeoutS;  ///< per env probe
  /// --ncu-session one (true, the default): every correct version is timed first, then ncu
  /// profiles all of them in one session (flows/ncu_session.hpp); per-version (false): one ncu
  /// process per version, right after its timing.
  bool one_ncu_session = kDefaultOneNcuSession;
  /// The environment already probed by this process (a `kprof __worker` running several sizes):
  /// used as is instead of probing again; nullptr = probe.
  const EnvReport* env = nullptr;
  DecideRequest decide;  ///< --decide and its options
};

/// Outcome of the whole run.
struct RunOutcome {
  bool env_ready = false;
  std::vector<VersionRow> rows;
  std::vector<RowComparison> comparison;
  std::optional<DecisionReport> decision;  ///< --decide: the decision block (comparison.json "decision")
  int exit_code = 0;  ///< 0: every version correct and classified; 1: env not ready or any version failed
};

}  // namespace kprof
