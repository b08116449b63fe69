// GpuRunPorts (flows/run/run_ports.hpp): each step of `kprof run` as the function it stands for.
#include "flows/run/run_ports.hpp"

#include <cuda_runtime_api.h>

#include "device/cuda.hpp"
#include "flows/assess_context.hpp"
#include "flows/profile.hpp"
#include "kernel/load.hpp"
#include "python/interpreter.hpp"

namespace kprof {

std::string GpuRunPorts::import_python(const std::string& module) { return python_preimport(module); }

void GpuRunPorts::select_gpu(int gpu) { kprof::select_gpu(gpu); }

std::unique_ptr<KernelInstance> GpuRunPorts::load(const KernelSpec& spec) {
  return load_kernel(spec, /*extra_copies=*/3.0);
}

size_t GpuRunPorts::free_device_bytes() {
  size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess ? free : 0;
}

bool GpuRunPorts::gpu_lost() const { return hard_exit_requested(); }

CheckResult GpuRunPorts::check(KernelInstance& inst, const CheckOptions& opts) {
  return run_check(
      inst, [this]() -> ReferenceRunner& { return reference_.get(); }, opts);
}

PendingProfile GpuRunPorts::time_for_session(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& ps,
                                             const std::string& name, const std::string& dir, bool with_work) {
  return kprof::time_for_session(inst, spec, ps, name, dir, with_work);
}

WorkModel GpuRunPorts::call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                                 std::vector<std::string>& notes) {
  return kprof::call_work(inst, spec, ref, notes);
}

ProfileOutcome GpuRunPorts::profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& ps,
                                    const std::string& dir, std::vector<std::pair<std::string, std::string>> header) {
  return run_profile(inst, spec, ps, dir, std::move(header));
}

void GpuRunPorts::profile_pending(std::vector<PendingProfile>& pending, const ProfileSettings& ps,
                                  const std::string& run_dir, bool gpu_usable,
                                  const std::function<void(const std::vector<PendingProfile>&)>& classified,
                                  const std::function<bool()>& go_on) {
  kprof::profile_pending(pending, ps, run_dir, gpu_usable, standby_.get(), classified, go_on);
}

RoundTiming GpuRunPorts::measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions& timing,
                                        const RoundOptions& rounds, int gpu, bool kernel_time, KernelInstance* aa) {
  return kprof::measure_rounds(versions, timing, rounds, gpu, kernel_time, aa);
}

}  // namespace kprof
