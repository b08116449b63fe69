// The steps of `kprof run` that reach outside its state machine (flows/run/run_workflow.hpp): the
// builds, the environment check, ref.py, the loads, the checks, the timings, ncu and the --decide
// rounds. RunWorkflow calls them only through RunPorts, so a test drives the whole flow on a CPU
// with fakes (tests/unit/test_run_flow_fakes.cpp); GpuRunPorts is the production one.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flows/env_gate.hpp"
#include "flows/ncu_session.hpp"
#include "flows/ncu_standby.hpp"
#include "flows/parallel_builds.hpp"
#include "stages/timing/rounds_gpu.hpp"
#include "stages/verify/check.hpp"
#include "stages/verify/reference_loader.hpp"

namespace kprof {

/// What RunWorkflow needs from the world, one method per step. Errors are thrown as kprof::Error
/// (the step's row records them), as by the functions each method stands for.
class RunPorts {
 public:
  virtual ~RunPorts() = default;

  // --- builds (ParallelBuilds) ---
  /// Waits for version `i`'s build; rethrows a failed build's Error.
  virtual const VersionBuild& wait_build(size_t i) = 0;
  /// Waits for every build (no nvcc beside timed calls).
  virtual void wait_all_builds() = 0;
  /// Cancels the builds not yet started.
  virtual void cancel_builds() = 0;

  // --- the environment check (EnvGate) ---
  /// Waits for the environment check; true when it passed.
  virtual bool env_wait() = 0;
  /// True once the environment check has ended (passed or not).
  virtual bool env_done() const = 0;
  /// Waits for the environment's GPU probes (ncu's), which never run beside timed calls.
  virtual void wait_gpu_probes() = 0;

  // --- ref.py (BackgroundReference) and Python ---
  /// True when ref.py's background load has ended (loaded or failed).
  virtual bool reference_ready() const = 0;
  /// True once ref.py could not be loaded: no version can be checked.
  virtual bool reference_failed() const = 0;
  /// Imports Python package `module` for the run (python_preimport): "" when it failed.
  virtual std::string import_python(const std::string& module) = 0;

  // --- the GPU ---
  /// Makes GPU `gpu` the CUDA context of the checks (select_gpu); throws Error when there is none.
  virtual void select_gpu(int gpu) = 0;
  /// Loads (and, with spec.build, builds) a version (load_kernel, extra_copies 3.0).
  virtual std::unique_ptr<KernelInstance> load(const KernelSpec& spec) = 0;
  /// Free device memory, bytes; 0 when it cannot be read (cudaMemGetInfo).
  virtual size_t free_device_bytes() = 0;
  /// True once a kernel hung or lost the context: the GPU is unusable (hard_exit_requested).
  virtual bool gpu_lost() const = 0;

  // --- the steps ---
  /// The check of `inst` against ref.py (run_check; waits for ref.py's load).
  virtual CheckResult check(KernelInstance& inst, const CheckOptions& opts) = 0;
  /// Times a prepared `inst` for the run's one ncu session (time_for_session).
  virtual PendingProfile time_for_session(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& ps,
                                          const std::string& name, const std::string& dir, bool with_work) = 0;
  /// The call's least work, once ref.py is there (call_work).
  virtual WorkModel call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                              std::vector<std::string>& notes) = 0;
  /// Timing, ncu and reports of one version in its own session (run_profile).
  virtual ProfileOutcome profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& ps,
                                 const std::string& dir, std::vector<std::pair<std::string, std::string>> header) = 0;
  /// True when an ncu session waits in standby for the timed versions.
  virtual bool has_standby() = 0;
  /// The ncu step of the pending versions (profile_pending, with the standby session when one runs).
  virtual void profile_pending(std::vector<PendingProfile>& pending, const ProfileSettings& ps,
                               const std::string& run_dir, bool gpu_usable,
                               const std::function<void(const std::vector<PendingProfile>&)>& classified,
                               const std::function<bool()>& go_on) = 0;
  /// --decide's interleaved rounds (measure_rounds).
  virtual RoundTiming measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions& timing,
                                     const RoundOptions& rounds, int gpu, bool kernel_time, KernelInstance* aa) = 0;
};

/// The production RunPorts: the run's builds, environment gate and standby slot (owned by
/// run_workflow), ref.py loading in the background from construction, and the GPU steps.
class GpuRunPorts final : public RunPorts {
 public:
  /// Starts loading `ref` (ref.py) for GPU `gpu` in the background.
  GpuRunPorts(ParallelBuilds& builds, EnvGate& env, StandbySlot& standby, const std::string& ref, int gpu)
      : builds_(builds), env_(env), standby_(standby), reference_(ref, gpu) {}

  const VersionBuild& wait_build(size_t i) override { return builds_.wait(i); }
  void wait_all_builds() override { builds_.wait_all(); }
  void cancel_builds() override { builds_.cancel(); }
  bool env_wait() override { return env_.wait(); }
  bool env_done() const override { return env_.done(); }
  void wait_gpu_probes() override { env_.wait_gpu_probes(); }
  bool reference_ready() const override { return reference_.ready(); }
  bool reference_failed() const override { return reference_.load_failed(); }
  std::string import_python(const std::string& module) override;
  void select_gpu(int gpu) override;
  std::unique_ptr<KernelInstance> load(const KernelSpec& spec) override;
  size_t free_device_bytes() override;
  bool gpu_lost() const override;
  CheckResult check(KernelInstance& inst, const CheckOptions& opts) override;
  PendingProfile time_for_session(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& ps,
                                  const std::string& name, const std::string& dir, bool with_work) override;
  WorkModel call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                      std::vector<std::string>& notes) override;
  ProfileOutcome profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& ps,
                         const std::string& dir, std::vector<std::pair<std::string, std::string>> header) override;
  bool has_standby() override { return standby_.get() != nullptr; }
  void profile_pending(std::vector<PendingProfile>& pending, const ProfileSettings& ps, const std::string& run_dir,
                       bool gpu_usable, const std::function<void(const std::vector<PendingProfile>&)>& classified,
                       const std::function<bool()>& go_on) override;
  RoundTiming measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions& timing,
                             const RoundOptions& rounds, int gpu, bool kernel_time, KernelInstance* aa) override;

 private:
  ParallelBuilds& builds_;
  EnvGate& env_;
  StandbySlot& standby_;
  BackgroundReference reference_;
};

}  // namespace kprof
