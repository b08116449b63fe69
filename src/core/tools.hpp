// The CUDA command-line tools kprof drives: where they are, which version, and whether ncu can
// read the GPU's performance counters.
#pragma once

#include <string>
#include <vector>

#include "core/subprocess.hpp"

namespace kprof {

/// Finds `name` (nvcc, ncu, compute-sanitizer): first on PATH, then in $CUDA_HOME/bin,
/// $CUDA_PATH/bin, the toolkit kprof was built with (KPROF_CUDA_BIN_DIR), /usr/local/cuda/bin,
/// and for ncu /opt/nvidia/nsight-compute/<newest>/, for compute-sanitizer
/// /usr/local/cuda/compute-sanitizer/. Returns the full path or "" when absent.
std::string find_tool(const std::string& name);

/// $KPROF_NVCC when set (its path when executable, else "" as if there were no nvcc), else
/// find_tool("nvcc").
std::string nvcc_path();

/// find_tool("ncu").
std::string ncu_path();

/// $KPROF_COMPUTE_SANITIZER when set (its path when executable, else "" as if there were none),
/// else find_tool("compute-sanitizer").
std::string compute_sanitizer_path();

/// A tool found (or not) and its `--version`.
struct ToolInfo {
  std::string name;     ///< "nvcc", "ncu", "compute-sanitizer"
  std::string path;     ///< full path, "" when not found
  std::string version;  ///< "13.0.88", "2025.3.1.0"; "" when unknown
  std::string error;    ///< why it is unusable ("not found on PATH ...", "timed out after 60 s")
  bool ok() const { return !path.empty() && error.empty(); }
};

/// Extracts the version from a tool's `--version` output: nvcc's "release 13.0, V13.0.88" gives
/// "13.0.88"; ncu's / compute-sanitizer's "Version 2025.3.1.0 (build ...)" gives "2025.3.1.0".
/// "" when neither form is present.
std::string parse_tool_version(const std::string& output);

/// Finds `name` and runs `<path> --version` with a limit of `timeout_s` seconds (a hanging tool
/// is killed and reported as such). Never throws.
ToolInfo probe_tool(const std::string& name, double timeout_s);

/// The one metric of the environment's counter probe (ncu --metrics ...).
inline constexpr const char* kNcuProbeMetric = "sm__cycles_elapsed.avg";

/// Whether ncu could read a performance counter (the one-metric probe under ncu).
struct NcuCounters {
  bool checked = false;            ///< the probe ran (false: no ncu, or no GPU to run it on)
  bool readable = false;           ///< sm__cycles_elapsed.avg came back as a number
  double cycles = 0;               ///< its value (cycles) when readable
  bool permission_denied = false;  ///< ERR_NVGPUCTRPERM
  bool no_kernels = false;         ///< ncu said "No kernels were profiled"
  std::string error;               ///< one line: what went wrong ("" when readable)
  std::string fix;                 ///< one line: what to do about it
  std::string command;             ///< the ncu command line that ran (copy-pasteable)
  /// Probed as the first launch of `kprof run`'s ncu session (stages/ncu/session_probe.hpp), not
  /// by a probe of its own: `cycles` is not read (the value is in the session's report).
  bool probed_in_session = false;
};

/// True when ncu's output is the "no permission to access NVIDIA GPU Performance Counters"
/// error (ERR_NVGPUCTRPERM).
bool is_counter_permission_error(const std::string& ncu_output);

/// NVIDIA's documented fix for ERR_NVGPUCTRPERM, one line (https://developer.nvidia.com/ERR_NVGPUCTRPERM):
/// run as root / with CAP_SYS_ADMIN, or set NVreg_RestrictProfilingToAdminUsers=0 and reload.
std::string counter_permission_fix();

/// True when ncu's output says "Profiling failed because a driver resource was unavailable":
/// another profiling session (a second ncu on the same GPU, Nsight Systems GPU metrics, or DCGM's
/// profiling module) holds the GPU's performance counters. Measured on an H200: two ncu
/// at once with separate TMPDIRs, the second fails with it.
bool is_driver_resource_error(const std::string& ncu_output);

/// What to do about it: wait for the other profiler or stop it; pause DCGM profiling with
/// `dcgmi profile --pause` (resume: `dcgmi profile --resume`); never run two kprof on one GPU at once.
std::string driver_resource_fix();

/// The first line of ncu's (or a tool's) output that says what went wrong: its first "==ERROR=="
/// line, else its first "error:" line, trimmed; "" when there is none.
std::string first_error_line(const std::string& text);

/// Reads the result of the one-metric probe from ncu's output (text or --csv form) and exit state.
NcuCounters parse_ncu_probe(const ProcessResult& result);

struct ChildOutcome;  // core/outcome.hpp

/// Folds the probe target's outcome document into `c`: when the target failed (exit != 0) and no
/// value came back, the error is the target's own message ("kprof's probe kernel failed under ncu
/// (exit N): ...") and the fix its hint. Nothing changes when the value was read or the target
/// wrote no outcome (ncu's own failure then stands).
void apply_probe_outcome(NcuCounters& c, const ChildOutcome& target);

/// The probe: `ncu --clock-control none --metrics sm__cycles_elapsed.avg --target-processes all
/// <target...>` with a limit of `timeout_s` seconds. `target` is the program ncu launches,
/// normally self_command() + {"__probe", "--request", FILE} (core/probe_request.hpp). The target
/// writes its outcome document (core/outcome.hpp) to a scratch file this names for it: when the
/// target failed (the probe kernel did not run), the result's error is the target's own message
/// and hint, not a guess from ncu's output. Never throws.
NcuCounters probe_ncu_counters(const std::string& ncu, const std::vector<std::string>& target, double timeout_s);

/// The running executable's path (readlink /proc/self/exe), "" when unknown. Inside the Python
/// package this is the python interpreter, not kprof: start kprof's own children with self_command().
std::string self_exe_path();

/// The words that start kprof again in a child process (`__runner`, `__session`, `__probe`,
/// `__worker`, the sanitizer's `check`): the host's (core/host.hpp Host::self_command: inside the
/// Python package {sys.executable, "-m", "kprof"}, so a child runs on the same Python and PyTorch),
/// else {self_exe_path()} for the kprof executable. Empty when unknown. Thread-safe.
std::vector<std::string> self_command();

}  // namespace kprof
