// The interleaved rounds of `kprof run --decide` (pure, no CUDA): every round times each arm (each
// version, plus the baseline again as the A/A arm) in a new seeded random order on the same input sets,
// the run's band of SM clock and throttle state, the rounds outside it discarded and counted, and
// the device memory the versions need together. The GPU is reached only through RoundHooks
// (rounds_gpu.hpp drives the real kernels; the unit tests a fake timer and clock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kprof {

/// --rounds' default: 60 rounds. Source: kprof's rule: with a per-round ratio spread of 2% (a
/// short kernel on the H200), 60 rounds give a 99% interval of the median about +-0.8% wide, below
/// a 3% gain minus the 1% default threshold.
inline constexpr int kDefaultRounds = 60;
/// --decide-budget's default, seconds: the rounds stop at this wall time (after kMinRounds) even
/// when fewer than --rounds ran. Source: kprof's rule (an agent's loop waits for it).
inline constexpr double kDefaultDecideBudgetS = 120;
/// Rounds made whatever the budget: 20. Source: kprof's rule from the simulation suite
/// (docs/decisions-sim.md): at 10 rounds the 99% interval of the median is [min, max] of the
/// rounds, and a true +3% at 1% noise is kept in about 40% of runs; at 20, in over 90%.
inline constexpr int kMinRounds = 20;
/// --calls-per-round's default: each arm's time in a round is the median of 3 calls (one slow
/// call does not make a round's ratio). Source: kprof's rule.
inline constexpr int kDefaultCallsPerSlot = 3;
/// The run's band: a round whose SM clock (the lowest NVML read during it) is more than 2% from
/// the run's reference clock state (the clock with the most rounds within 2% of it) is discarded. Source: the same tolerance as the timing passes' clock
/// comparison (timing.hpp kDurationClockTolerance: NVML's 15 MHz steps are 0.8% of 1980 MHz).
inline constexpr double kRoundBandFrac = 0.02;

/// How to run the rounds.
struct RoundOptions {
  int rounds = kDefaultRounds;                ///< --rounds: rounds to make
  double budget_s = kDefaultDecideBudgetS;    ///< --decide-budget: wall-time limit, seconds
  int min_rounds = kMinRounds;                ///< made even past the budget
  int calls_per_slot = kDefaultCallsPerSlot;  ///< --calls-per-round: calls per arm per round (median)
  uint64_t seed = 0;   ///< of the per-round orders; 0: drawn per run (std::random_device), recorded in the result
  bool aa_arm = true;  ///< time the baseline twice per round (the A/A floor)
  double band_frac = kRoundBandFrac;
};

/// Throws Error (exit 2) naming the option when a value is out of range (rounds < 1, budget <= 0,
/// calls per round < 1, a band outside (0, 1)).
void validate(const RoundOptions& o);

/// A round's clock conditions: the lowest SM clock NVML reported during it and whether a power or
/// thermal throttle reason was set (nvml_reasons_throttle).
struct RoundConditions {
  std::optional<unsigned> sm_mhz;
  bool throttled = false;
};

/// One round.
struct Round {
  std::vector<int> order;  ///< arm indices in the order they were timed
  std::vector<double> ms;  ///< per arm (by index): the median of its calls this round, ms
  int set = 0;             ///< the input set of each arm's first call this round (call c: set + c, modulo the sets)
  RoundConditions cond;
  bool discarded = false;
  std::string why;        ///< why discarded ("SM clock 1755 MHz outside 1940-2020 MHz", "throttled")
  size_t zero_calls = 0;  ///< calls of this round whose time was <= 0 or not a number (the round is discarded)
};

/// The run's band and what it discarded.
struct RoundBand {
  /// The reference clock state: the round clock with the most rounds within band_frac of it (ties:
  /// the higher clock), unset without NVML readings. Not an average: two states 5% apart give a
  /// band around one of them, never around the gap between them.
  std::optional<unsigned> ref_mhz;
  unsigned lo_mhz = 0, hi_mhz = 0;  ///< ref * (1 -+ band_frac), MHz
  bool throttled = false;           ///< the run's throttle state: that of most rounds
  size_t discarded_clock = 0;       ///< rounds outside [lo_mhz, hi_mhz]
  size_t discarded_throttle = 0;    ///< rounds (in the clock band) whose throttle state differs from the run's
  size_t discarded_zero = 0;        ///< rounds with a zero-time call (no kernel ran or was recorded)
  std::string note;                 ///< e.g. "no SM clock readings: no round discarded by clock"
};

/// The rounds of one decision.
struct RoundsResult {
  int versions = 0;     ///< arms 0..versions-1 are the versions (arm 0 the baseline)
  bool aa_arm = false;  ///< arm `versions` is the baseline again
  std::vector<Round> rounds;
  RoundBand band;
  std::string stopped_by;  ///< "rounds" or "time budget"
  double seconds = 0;      ///< wall time of the rounds
  uint64_t seed = 0;       ///< the seed of the rounds' orders (drawn per run unless RoundOptions::seed)
  size_t zero_calls = 0;   ///< calls whose time was <= 0 or not a number, all rounds
  /// The times of arm `arm` over the kept rounds, in round order (ms).
  std::vector<double> kept_ms(int arm) const;
  /// The times of arm `arm` over every round, discarded ones included (ms).
  std::vector<double> all_ms(int arm) const;
  size_t kept() const;
  size_t discarded() const { return rounds.size() - kept(); }
  int arms() const { return versions + (aa_arm ? 1 : 0); }
};

/// What the rounds drive. All but time_call may be empty.
struct RoundHooks {
  /// One timed call of version `version` on input set `set` (restore and flush before it,
  /// outside the timed window), ms.
  std::function<double(int version, int set)> time_call;
  std::function<void()> begin_round;           ///< before a round's first call
  std::function<RoundConditions()> end_round;  ///< after its last call: its clock conditions
  std::function<double()> now_s;               ///< monotonic seconds (default: steady_clock)
  int sets = 1;                                ///< input sets to rotate over, one per call
  /// The version time_call gets for the A/A arm: -1 the baseline (0) again; else this index (a
  /// second instance of the baseline with its own buffers, so the arm sees carry-over as a version would).
  int aa_version = -1;
};

/// A new random order of `arms` arms (a permutation of 0..arms-1) drawn from `rng`.
std::vector<int> round_order(int arms, std::mt19937_64& rng);

/// Runs the rounds: round r times every arm in round_order's order, each arm calls_per_slot times
/// (call c of round r on set (r * calls_per_slot + c) % sets: consecutive calls of one arm on
/// other inputs, every arm on the same sets), the arm's time the median of its calls; stops after o.rounds rounds, or at
/// o.budget_s once o.min_rounds ran (the stop never reads the times), then applies the band.
/// Exceptions of the hooks propagate.
RoundsResult run_rounds(int versions, const RoundOptions& o, const RoundHooks& h);

/// Replaces every arm's time in `r` with the median of its calls' `per_call_ms` (one value per
/// call, in the order run_rounds made them: round by round, arms in each round's order,
/// `calls_per_slot` calls each): how a pass whose times are known only after its last call (CUPTI's
/// kernel records) fills its rounds. False, and `r` unchanged, when the count does not match.
bool refill_round_times(RoundsResult& r, const std::vector<double>& per_call_ms, int calls_per_slot);

/// The run's band (RoundBand) over `rounds`: every round with a zero-time call discarded first
/// (counted in discarded_zero); reference clock the clock state with the most rounds within
/// band_frac (RoundBand::ref_mhz), band ref * (1 -+ band_frac); the throttle state that of most
/// rounds; every round outside the clock band or in the other throttle state is marked discarded
/// with its reason. Rounds without a clock reading are judged by their throttle state alone.
RoundBand apply_band(std::vector<Round>& rounds, double band_frac);

/// Whether the versions' round buffers fit in device memory together, said before any timing.
struct RoundMemory {
  bool fits = true;
  int sets = 1;           ///< the input sets that fit (the wanted ones, or 1)
  size_t need_bytes = 0;  ///< the copies the rounds add at `sets`, bytes
  size_t free_bytes = 0;
  std::string message;  ///< "" when the wanted sets fit; else what was done or why it cannot run
};

/// Device memory the rounds may use: 90% of the free memory (the rest for the CUDA context's
/// growth and the kernels' own scratch). Source: kprof's rule.
inline constexpr double kRoundMemoryShare = 0.9;

/// The rounds keep every version's input sets at once: `sets` device copies of each version's
/// buffers (`version_bytes`) plus the L2 flush scratch (`flush_bytes`). Fits when that is at most
/// kRoundMemoryShare of `free_bytes`; else fewer sets (down to 1, the outputs' restore copies
/// counted as the whole buffers) with a message; else fits = false with the message.
RoundMemory plan_round_memory(const std::vector<size_t>& version_bytes, int sets, size_t flush_bytes,
                              size_t free_bytes);

}  // namespace kprof
