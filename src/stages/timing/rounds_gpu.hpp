// The GPU side of `kprof run --decide`'s interleaved rounds: the versions' input sets and one L2
// flusher, each version warmed up, then rounds.hpp run_rounds driving CUDA events around every
// call and NVML's clocks per round. Thin on purpose: the order, the stop, the band and the memory
// plan are pure (rounds.hpp) and unit-tested with a fake timer.
#pragma once

#include <string>
#include <vector>

#include "kernel/kernel_instance.hpp"
#include "stages/timing/rounds.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

/// What measure_rounds measured.
struct RoundTiming {
  RoundsResult rounds;
  RoundMemory memory;              ///< the plan said before timing
  size_t l2_flush_bytes = 0;       ///< bytes read per flush (0: no flush)
  std::vector<int> warmup_calls;   ///< per version
  std::vector<std::string> notes;  ///< input sets, flush, NVML, CUPTI
  /// The rounds' times are kernel times (CUPTI's kernel records summed per call, the flush kernels
  /// left out); false: call times (CUDA events).
  bool kernel_time = false;
};

/// Device bytes of `inst`'s buffers (element count x element size, guard zones not counted).
size_t round_buffer_bytes(const KernelInstance& inst);

/// Times `versions` (loaded and checked; [0] is the baseline) in interleaved rounds on GPU `gpu`
/// (selected): first the memory plan (plan_round_memory over cudaMemGetInfo: Error exit 1 with
/// its message before any timed call when they do not fit), then each version's input sets
/// (InputSets: seeds timing.seed, +1, ...; the same data for every version), one L2 flusher
/// (timing.l2_flush), each version warmed up (timing's warm-up), then run_rounds: every call
/// between CUDA events on the legacy default stream, restore and flush before it outside the
/// window, the device waited for within timing.call_timeout_ms; per round the lowest SM clock and
/// the throttle reasons NVML saw (sampler plus a read after the round) for the band. With
/// `kernel_time` the same rounds run inside one CUPTI activity session instead of between events:
/// each call's time is the sum of its kernels' records (attribution.hpp), filled in once the
/// session ends (refill_round_times); when CUPTI cannot collect, a note says so and the events time
/// the calls. Throws Error (exit 1) when a call fails or hangs, (exit 2) for bad options.
/// `aa`: a second instance of the baseline (loaded apart, its own buffers and input sets) timed as
/// the A/A arm (RoundHooks::aa_version), so the arm meets the carry-over a version meets; nullptr:
/// the baseline's own instance again.
RoundTiming measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions& timing,
                           const RoundOptions& rounds, int gpu, bool kernel_time = false, KernelInstance* aa = nullptr);

}  // namespace kprof
