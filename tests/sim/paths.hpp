// The decision paths of kprof the simulation suite drives (tests/sim), each through kprof's own
// code: the phase-1 stop of the timing stage (stages/timing/timing.hpp phase1_stop) behind the fake
// clock, `kprof run`'s ranking (stages/results/versions.hpp compare_versions), `--decide`'s rounds
// and rule (stages/timing/rounds.hpp run_rounds, stages/results/decision.hpp decide_versions),
// `kprof compare` of saved runs and the pytest gate (stages/results/compare.hpp compare_inputs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/fake_gpu.hpp"

namespace kprof::sim {

/// What a path said about one candidate against the baseline.
enum class Call {
  None,  ///< no decision (same, inconclusive, within threshold; the gate passed)
  Up,    ///< faster / keep
  Down,  ///< slower / revert / the gate failed
};

/// The paths.
enum class Path {
  Run,             ///< `kprof run`'s default comparison (faster / slower between versions)
  Decide,          ///< `kprof run --decide` (keep / revert)
  DecideConfirm,   ///< `kprof run --decide --confirm`
  Decide10,        ///< `kprof run --decide` stopped at 10 rounds by its budget
  Compare,         ///< `kprof compare` of two saved runs: the decision column (keep / revert)
  CompareVsFirst,  ///< `kprof compare`: the vs-first column (faster / slower)
  Gate,            ///< `kprof compare BASE NEW --fail-if-slower 5` (the pytest gate until issue 49)
  GateRetimed,     ///< the pytest gate re-timing the baseline beside the candidate: `kprof run BASE NEW
                   ///< --decide --min-gain 5`, failed on revert (python/kprof/pytest_plugin.py)
};

/// Every path, in table order.
std::vector<Path> all_paths();
/// A short name for tables ("run", "decide", ...).
std::string path_name(Path p);

/// One simulated use of path `p`: a baseline and `k` candidates each `effect` faster (fraction;
/// -0.05 is 5% slower; time = base / (1 + effect)), under model `m`, the fake clock's horizon
/// `horizon_s`, seeded by `seed`. Returns one Call per candidate and sets `elapsed_s` to the fake
/// seconds the (last) run took.
std::vector<Call> simulate(Path p, const Model& m, int k, double effect, double horizon_s, uint64_t seed,
                           double* elapsed_s = nullptr);

/// Path::Compare and Path::CompareVsFirst from the same pair of saved runs (one compare, both
/// columns): the decision column returned, the vs-first column in `vs_first`.
std::vector<Call> simulate_compare(const Model& m, int k, double effect, double horizon_s, uint64_t seed,
                                   std::vector<Call>& vs_first);

}  // namespace kprof::sim
