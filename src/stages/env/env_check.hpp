// `kprof env`: gathering the facts about this machine (GPU, driver, tools, Python packages,
// CUTLASS). Judging them is readiness.hpp; writing them is env_report.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "device/gpu_index.hpp"
#include "kernel/cutlass.hpp"
#include "stages/env/gpu_info.hpp"
#include "stages/env/python_probe.hpp"
#include "core/tools.hpp"

namespace kprof {

struct EnvFacts;

/// Default of `kprof env --timeout` and `kprof run --env-timeout`: seconds each probe may take.
inline constexpr double kDefaultEnvProbeTimeoutS = 60;

/// Options of one environment check.
struct EnvOptions {
  int gpu = kDefaultGpu;                        ///< CUDA device index to check (--gpu)
  double timeout_s = kDefaultEnvProbeTimeoutS;  ///< time limit of EACH probe subprocess, seconds (--timeout)
  /// The words that start the kprof whose hidden `__probe` command ncu profiles; empty = this
  /// process's (core/tools.hpp self_command()). Tests point it at the built kprof binary.
  std::vector<std::string> self_exe;
  bool progress = true;  ///< print one progress line per probe on stderr
  /// Called (on the collecting thread) once the tools and the ncu counter probe are done, while the
  /// Python probe may still run: `kprof run` starts its Nsight Compute session then, so no two ncu
  /// processes overlap. Gets the facts gathered so far (gpu, nvcc, ncu, sanitizer, counters).
  std::function<void(const EnvFacts&)> on_counters_probed;
  /// `kprof run`: the counter probe as the first launch of its standby ncu session
  /// (flows/ncu_standby.hpp, stages/ncu/session_probe.hpp). Called once ncu is found usable and
  /// the GPU present (with the facts so far), it starts that session and returns the wait for the
  /// probe's outcome; an empty function means it did not start, and the probe of its own
  /// (`ncu ... kprof __probe`) runs instead.
  std::function<std::function<NcuCounters()>(const EnvFacts&)> counter_probe_in_session;
};

/// Everything the check found. Plain data: assess_env() judges it, so tests can build one by hand.
struct EnvFacts {
  std::string date;           ///< now_string()
  std::string host;           ///< gethostname
  std::string kprof_version;  ///< KPROF_VERSION
  int gpu_index = 0;          ///< --gpu
  GpuInfo gpu;                ///< cudart + NVML
  ToolInfo nvcc, ncu, sanitizer;
  NcuCounters counters;          ///< the one-metric ncu probe (checked == false when not run)
  std::string counters_skipped;  ///< why the counter probe did not run, "" when it ran
  PythonInfo python;             ///< the one Python probe
  CutlassLookup cutlass;         ///< CUTLASS C++ headers
  /// The libcupti kprof runs with: its API version (device/cupti_version.hpp, 0 = unknown) and
  /// directory; 13.4+ lets the GPU-duration pass reset the L2 before each kernel as ncu does.
  uint32_t cupti_version = 0;
  std::string cupti_dir;
  std::string cupti_source;              ///< how it was found (device/cupti_loader.hpp CuptiLoad::source), "" = none
  std::vector<std::string> cupti_tried;  ///< the places passed over when none was found
  /// The CUDA_* variables of the environment, plus the ones kprof reads (CUTLASS_PATH,
  /// CUTLASS_ROOT, CUTLASS_HOME, KPROF_PYTHON, KPROF_NVML_LIBRARY) when set; sorted by name.
  std::vector<std::pair<std::string, std::string>> env_vars;
};

/// Runs every probe (each under `opts.timeout_s`; the Python probe on a thread of its own, beside
/// the tools and the ncu counter probe) and returns what it found. Never throws for a missing or
/// broken item: those are recorded in the facts.
EnvFacts collect_env(const EnvOptions& opts);

/// The CUDA_* (and kprof-relevant) variables of this process, sorted.
std::vector<std::pair<std::string, std::string>> cuda_env_vars();

}  // namespace kprof
