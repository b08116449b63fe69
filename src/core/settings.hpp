// kprof's configuration from its environment variables, read in one place: settings() reads every
// KPROF_* variable (and the few standard ones kprof honours) once per process, on first use. The
// README's "Environment variables" table lists them. Tests replace the settings with
// ScopedSettings instead of calling setenv().
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Every environment setting kprof reads. An unset variable leaves the field at its default.
struct Settings {
  std::string python;                              ///< KPROF_PYTHON: interpreter to embed (name on PATH or path)
  std::optional<std::string> nvcc;                 ///< KPROF_NVCC: set (even empty) replaces the search
  std::optional<std::string> compute_sanitizer;    ///< KPROF_COMPUTE_SANITIZER: set replaces the search
  std::string ncu;                                 ///< KPROF_NCU: the ncu to run ("" = search)
  std::string ncu_report;                          ///< KPROF_NCU_REPORT: folder with ncu_report, or "off"
  std::string nvml_library = "libnvidia-ml.so.1";  ///< KPROF_NVML_LIBRARY
  std::string cache_dir;                           ///< KPROF_CACHE_DIR ("" = derived: core/fs.hpp kprof_cache_dir)
  std::string xdg_cache_home;                      ///< XDG_CACHE_HOME
  std::string home;                                ///< HOME
  std::string color;                               ///< KPROF_COLOR: "always", "never", "" = terminal only
  bool no_color = false;                           ///< NO_COLOR set and not empty (https://no-color.org)
  std::string trace_path;                          ///< KPROF_TRACE: file that every event line is appended to
  bool py_traceback = false;                       ///< KPROF_PY_TRACEBACK set and not "0"
  bool tmpdir_per_gpu = false;                     ///< KPROF_TMPDIR_PER_GPU=1
  std::optional<double> slurm_poll_s;              ///< KPROF_SLURM_POLL_S (seconds between squeue polls)
  bool full_exit = false;                          ///< KPROF_FULL_EXIT (set by check --sanitize for its child)
  std::string fault_inject;                        ///< KPROF_FAULT_INJECT (orchestration tests, read by cli/)
  std::vector<std::string> cuda_roots;             ///< CUDA_HOME, CUDA_PATH (set ones): their bin/ is searched
  std::string cupti_dir;   ///< KPROF_CUPTI_DIR: folder of the libcupti.so.13 to load first (device/cupti_loader.hpp)
  std::string error_file;  ///< KPROF_ERROR_FILE: print_error also writes {"message","hint"} JSON there (Python API)
  /// Bounded reads (issue 50), each far above any real report and raised with its variable:
  /// KPROF_MAX_INPUT_BYTES, the largest report file read (64 GiB: a `--set full` export of a large
  /// application reaches gigabytes); KPROF_MAX_LINE_BYTES, the longest line (record) of a CSV
  /// export (256 MiB; a real raw-page line of 2,300 metrics is about 70 KB); KPROF_INPUT_WAIT_S,
  /// how long a FIFO or pipe may stay silent before its read is given up (60 s).
  double max_input_bytes = 64.0 * (1ULL << 30);
  double max_line_bytes = 256.0 * (1 << 20);
  double input_wait_s = 60.0;
};

/// Looks up one variable: nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

/// The settings `lookup` gives. A KPROF_SLURM_POLL_S that is not a number is ignored.
Settings settings_from(const EnvLookup& lookup);

/// settings_from(the process's environment as it is now).
Settings settings_from_environment();

/// The process's settings: settings_from(the environment) on the first call, or what a live
/// ScopedSettings put in place. Thread-safe.
const Settings& settings();

/// Test seam: replaces the process's settings while it lives (restores the previous ones after).
class ScopedSettings {
 public:
  explicit ScopedSettings(Settings s);
  ~ScopedSettings();
  ScopedSettings(const ScopedSettings&) = delete;
  ScopedSettings& operator=(const ScopedSettings&) = delete;

 private:
  const Settings* previous_;
  Settings mine_;
};

}  // namespace kprof
