#include "stages/timing/rounds_gpu.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <memory>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "device/cuda.hpp"
#include "device/l2_flush.hpp"
#include "stages/env/nvml.hpp"
#include "stages/timing/attribution.hpp"
#include "stages/timing/clock_reader.hpp"
#include "stages/timing/cupti_session.hpp"
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

/// Everything the rounds drive: the versions' input sets, one flusher, a driver per version.
struct Rig {
  std::vector<std::unique_ptr<InputSets>> sets;
  std::unique_ptr<L2Flusher> flush;
  std::vector<std::unique_ptr<Driver>> drivers;
};

/// The input sets (the same seeds for every version), the flusher and the drivers; each version
/// warmed up in turn (its calls into out.warmup_calls).
Rig set_up(const std::vector<KernelInstance*>& versions, const TimingOptions& t, int gpu, RoundTiming& out) {
  Rig rig;
  for (auto* v : versions)
    rig.sets.push_back(std::make_unique<InputSets>(*v, t.seed, out.memory.sets, true, t.restore_outputs));
  if (!rig.sets.empty() && !rig.sets[0]->note().empty()) out.notes.push_back(rig.sets[0]->note());
  rig.flush = std::make_unique<L2Flusher>(gpu_l2_bytes(gpu), t.l2_flush);
  out.l2_flush_bytes = rig.flush->bytes();
  for (size_t i = 0; i < versions.size(); ++i) {
    rig.drivers.push_back(std::make_unique<Driver>(*versions[i], t.call_timeout_ms, gpu, *rig.sets[i], *rig.flush));
    out.warmup_calls.push_back(
        warm_up_calls(*rig.drivers.back(), t.warmup_calls, t.warmup_ms, t.min_warmup_calls).first);
  }
  return rig;
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

/// One call of `d` on input set `set` under CUPTI: its host window kept for the attribution.
void recorded_call(Driver& d, int set, const std::string& what, std::vector<CallWindow>& windows) {
  d.between_calls(set);
  CallWindow w;
  w.begin_ns = CuptiSession::now_ns();
  d.call(what);
  w.return_ns = CuptiSession::now_ns();
  d.wait(what);
  w.end_ns = CuptiSession::now_ns();
  windows.push_back(w);
}

/// The summed kernel time of every call from CUPTI's records (kprof's flush kernels dropped), ms.
std::vector<double> kernel_ms_per_call(CuptiSession& session, const std::vector<CallWindow>& windows) {
  CuptiRecords rec = session.finish();
  drop_kernels_named(rec.kernels, kL2FlushKernelName);
  return summarize_kernels(attribute_kernels(rec.kernels, rec.apis, windows), std::nullopt).sum_ms;
}

}  // namespace

size_t round_buffer_bytes(const KernelInstance& inst) {
  size_t b = 0;
  for (const auto& v : inst.buffers()) b += v.count * dtype_size(v.dtype);
  return b;
}

RoundTiming measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions& timing,
                           const RoundOptions& rounds, int gpu, bool kernel_time, KernelInstance* aa) {
  validate(timing);
  validate(rounds);
  RoundTiming out;
  std::vector<KernelInstance*> all = versions;  // with the A/A arm's own instance last
  if (aa) all.push_back(aa);
  out.memory = check_memory(all, timing, timing.l2_flush ? 2 * gpu_l2_bytes(gpu) : 0);
  if (!out.memory.message.empty()) out.notes.push_back(out.memory.message);
  Rig rig = set_up(all, timing, gpu, out);
  std::unique_ptr<CuptiSession> session;
  if (kernel_time) try {
      session = std::make_unique<CuptiSession>();
    } catch (const Error& e) {
      out.notes.push_back(std::string("kernel time not measured, the rounds time calls: ") + e.what());
    }
  out.kernel_time = session != nullptr;
  SmClockRecord clock_record;
  ClockReader clocks(gpu, clock_record);
  PassConditions pc;
  pc.sampler = clocks.start_sampler();
  EventPair ev;
  std::vector<CallWindow> windows;
  SampleWindow window;
  RoundHooks h;
  h.sets = rig.drivers.empty() ? 1 : rig.drivers[0]->sets();
  if (aa) h.aa_version = static_cast<int>(versions.size());
  h.time_call = [&](int v, int set) {
    Driver& d = *rig.drivers[static_cast<size_t>(v)];
    const std::string what = fmt::format("round call of version {}", v + 1);
    if (!session) return timed_call(d, ev, set, what);
    recorded_call(d, set, what, windows);
    return 0.0;  // the kernel time is known once the session ends (refill_round_times)
  };
  h.begin_round = [&] { window.begin_ms = pc.now(); };
  h.end_round = [&] {
    window.end_ms = pc.now();
    pc.windows.push_back(window);
    pc.after.push_back(clocks.quick());
    return RoundConditions{};  // settled below from the sampler's reads inside the round
  };
  out.rounds = run_rounds(static_cast<int>(versions.size()), rounds, h);
  if (session && !refill_round_times(out.rounds, kernel_ms_per_call(*session, windows), rounds.calls_per_slot))
    throw check_failed("CUPTI's kernel records do not match the rounds' calls",
                       "run --decide without --decide-time kernel");
  const auto conditions = pc.finish(nullptr, std::nullopt);
  for (size_t i = 0; i < out.rounds.rounds.size() && i < conditions.size(); ++i) {
    const auto& c = conditions[i];
    out.rounds.rounds[i].cond = {c.sm_mhz, c.reasons && nvml_reasons_throttle(*c.reasons)};
  }
  out.rounds.band = apply_band(out.rounds.rounds, rounds.band_frac);
  if (!clock_record.note.empty()) out.notes.push_back(clock_record.note);
  if (!rig.flush->note().empty()) out.notes.push_back(rig.flush->note());
  return out;
}

}  // namespace kprof
