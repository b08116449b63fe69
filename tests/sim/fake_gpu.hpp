// The simulation suite's fake GPU (tests/sim): per-call times of a kernel under a synthetic noise
// model, a fake clock that advances by each call, and the SM clock NVML would report. kprof's own
// rules (stages/timing, stages/results) read these times as they read a real GPU's; nothing of the
// rules is copied here (docs/decisions-sim.md).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace kprof::sim {

/// A synthetic model of per-call times. Log-normal factors unless stated; sd values are fractions.
struct Model {
  std::string name;
  double white_sd = 0;      ///< independent per-call noise (log sd)
  double t3_scale = 0;      ///< heavy tail: Student t with 3 degrees of freedom times this (log)
  double ar_rho = 0;        ///< AR(1) drift per call, coefficient
  double ar_sd = 0;         ///< AR(1) drift's stationary log sd
  double states_gap = 0;    ///< two clock states this far apart (slow = fast x (1 + gap))
  double states_dwell = 0;  ///< mean calls spent in a clock state before switching
  double step = 0;          ///< a clock step of this size at half the run's horizon
  double ramp = 0;          ///< a slowdown ramp of this size over the run's horizon
  double outlier_p = 0;     ///< share of calls that take outlier_x times as long
  double outlier_x = 10;
  double between_sd = 0;     ///< a run's level (log sd): the same kernel differs from run to run
  double run_state_gap = 0;  ///< between runs: each run is in the fast or the slow clock state
};

/// The ten within-run models of issue 49 plus the between-run ones (between_sd 1.5% everywhere:
/// a run of one kernel on one machine differs from another by about that, docs/METHOD.md).
std::vector<Model> standard_models();

/// One fake GPU for one kprof run: call(base_ms) gives a call's time, advancing the fake clock by it
/// plus 1 ms of kprof's restore and flush; sm_mhz() the clock of the current state.
class FakeGpu {
 public:
  /// `horizon_s`: the run's expected fake duration, where a step lands halfway and a ramp ends.
  FakeGpu(const Model& m, double horizon_s, uint64_t seed);
  double call(double base_ms);  ///< one timed call, ms
  double now_s() const { return now_; }
  unsigned sm_mhz() const { return mhz_; }
  /// The lowest SM clock since the last call of this (a round's lowest NVML reading).
  unsigned take_min_mhz();
  bool throttled() const { return false; }

 private:
  Model m_;
  double horizon_;
  std::mt19937_64 rng_;
  double now_ = 0, ar_ = 0, level_ = 1;
  bool slow_ = false;
  unsigned mhz_ = 1980, min_mhz_ = 1980;
};

/// A seed for replicate `rep` of cell (a, b, c): splitmix64 of the four.
uint64_t cell_seed(uint64_t base, uint64_t a, uint64_t b, uint64_t c, uint64_t rep);

}  // namespace kprof::sim
