#include "stages/timing/rounds_gpu.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <memory>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "device/cuda.hpp"
#include "stages/env/nvml.hpp"
#include "stages/timing/clock_reader.hpp"
#include "stages/timing/device_ops.hpp"
#include "stages/timing/driver.hpp"
#include "stages/timing/input_sets.hpp"

namespace kprof {
namespace {

/// The plan of the rounds' device memory; throws when the versions do not fit together.
RoundMemory check_memory(const std::vector<KernelInstance*>& versions, const TimingOptions& t, size_t flush_bytes) {
  std::vector<size_t> bytes;
  for (const auto* v : versions) bytes.push_back(round_buffer_bytes(*v));
  size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  RoundMemory m = plan_round_memory(bytes, t.input_sets, flush_bytes, free_b);
  if (!m.fits)
    throw check_failed(
        m.message, "run --decide on fewer versions at a time (the baseline and one candidate), or with a smaller size");
  return m;
}

/// One call of `d` on input set `set` between CUDA events, ms.
double timed_call(Driver& d, EventPair& ev, int set, const std::string& what) {
  d.between_calls(set);
  cuda_check(cudaEventRecord(ev.start, cudaStreamLegacy), "cudaEventRecord (start of " + what + ")");
  d.call(what);
  cuda_check(cudaEventRecord(ev.stop, cudaStreamLegacy), "cudaEventRecord (end of " + what + ")");
  d.wait(what);
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime (" + what + ")");
  return ms;
}

}  // namespace

size_t round_buffer_bytes(const KernelInstance& inst) {
  size_t b = 0;
  for (const auto& v : inst.buffers()) b += v.count * dtype_size(v.dtype);
  return b;
}

RoundTiming measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions& timing,
                           const RoundOptions& rounds, int gpu) {
  validate(timing);
  validate(rounds);
  RoundTiming out;
  const size_t l2 = gpu_l2_bytes(gpu);
  out.memory = check_memory(versions, timing, timing.l2_flush ? 2 * l2 : 0);
  if (!out.memory.message.empty()) out.notes.push_back(out.memory.message);
  std::vector<std::unique_ptr<InputSets>> sets;
  for (auto* v : versions)
    sets.push_back(std::make_unique<InputSets>(*v, timing.seed, out.memory.sets, true, timing.restore_outputs));
  if (!sets.empty() && !sets[0]->note().empty()) out.notes.push_back(sets[0]->note());
  L2Flusher flush(l2, timing.l2_flush);
  out.l2_flush_bytes = flush.bytes();
  std::vector<std::unique_ptr<Driver>> drivers;
  for (size_t i = 0; i < versions.size(); ++i) {
    drivers.push_back(std::make_unique<Driver>(*versions[i], timing.call_timeout_ms, gpu, *sets[i], flush));
    out.warmup_calls.push_back(
        warm_up_calls(*drivers.back(), timing.warmup_calls, timing.warmup_ms, timing.min_warmup_calls).first);
  }
  SmClockRecord clock_record;
  ClockReader clocks(gpu, clock_record);
  PassConditions pc;
  pc.sampler = clocks.start_sampler();
  EventPair ev;
  SampleWindow window;
  RoundHooks h;
  h.sets = drivers.empty() ? 1 : drivers[0]->sets();
  h.time_call = [&](int v, int set) {
    return timed_call(*drivers[static_cast<size_t>(v)], ev, set, fmt::format("round call of version {}", v + 1));
  };
  h.begin_round = [&] {
    reset_persisting_l2();
    window.begin_ms = pc.now();
  };
  h.end_round = [&] {
    window.end_ms = pc.now();
    pc.windows.push_back(window);
    pc.after.push_back(clocks.quick());
    return RoundConditions{};  // settled below from the sampler's reads inside the round
  };
  out.rounds = run_rounds(static_cast<int>(versions.size()), rounds, h);
  const auto conditions = pc.finish(nullptr, std::nullopt);
  for (size_t i = 0; i < out.rounds.rounds.size() && i < conditions.size(); ++i) {
    const auto& c = conditions[i];
    out.rounds.rounds[i].cond = {c.sm_mhz, c.reasons && nvml_reasons_throttle(*c.reasons)};
  }
  out.rounds.band = apply_band(out.rounds.rounds, rounds.band_frac);
  if (!clock_record.note.empty()) out.notes.push_back(clock_record.note);
  if (!flush.note().empty()) out.notes.push_back(flush.note());
  return out;
}

}  // namespace kprof
