// The Python kprof embeds, and the packages it needs, probed in ONE subprocess of that Python
// (a short script printing one JSON line per item) with a time limit: importing torch takes
// seconds and must never hang `kprof env`.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/implementation.hpp"
#include "python/interpreter.hpp"

namespace kprof {

// python_executable() (the interpreter kprof embeds) comes from python/interpreter.hpp.

/// One Python package as the probe saw it.
struct PyPackage {
  bool probed = false;      ///< the probe reached this package (false: it stopped earlier)
  bool importable = false;  ///< `import <module>` worked
  std::string version;      ///< package version ("2.8.0"), "" when unknown
  std::string error;        ///< the import error, one line ("ModuleNotFoundError: No module named 'torch'")
};

/// PyTorch extras.
struct TorchInfo : PyPackage {
  std::string cuda_build;       ///< torch.version.cuda ("12.8"); "" for a CPU-only build
  bool cuda_available = false;  ///< torch.cuda.is_available()
  std::string device;           ///< torch.cuda.get_device_name(0) when available
};

/// What the one probe subprocess reported.
struct PythonInfo {
  std::string path;     ///< the interpreter probed
  bool ran = false;     ///< it started and printed its first line
  std::string error;    ///< why the probe failed or stopped early ("timed out after 60 s ...")
  std::string version;  ///< "3.11.7"
  TorchInfo torch;      ///< import torch
  /// The languages' packages, keyed by LanguageRow::probe_key ("triton", "cute_dsl"): import of
  /// the row's probe_module, the version of its distribution. One per row with a probe_module.
  std::map<std::string, PyPackage> languages;
  PyPackage nsight_python;  ///< import nsight (version of nsight-python); reported, not required
  /// site-packages/cutlass_library/source of the `nvidia-cutlass` pip package (it ships the
  /// CUTLASS C++ headers under include/), "" when not installed.
  std::string cutlass_pip_source;
  std::string cutlass_pip_version;  ///< version of nvidia-cutlass, "" when not installed

  /// The package of `impl`'s row (an unprobed one when the probe did not reach it).
  const PyPackage& language(Implementation impl) const;
  PyPackage& language(Implementation impl);
};

/// The probe script (Python 3.8+): prints lines "KPROF_PROBE {json}", one per item, flushed, so a
/// probe stopped by its time limit still reports what it reached. The languages' imports come from
/// the rows (language_rows(): probe_module, probe_key, distribution), in row order.
std::string python_probe_script();

/// Parses the probe's stdout (other lines, such as import warnings, are ignored).
/// Items missing from the output keep probed == false.
PythonInfo parse_python_probe(const std::string& out);

/// Runs the probe with `python` (default python_executable()) for at most `timeout_s` seconds.
/// Never throws; a missing interpreter, a crash or the time limit land in `error`.
PythonInfo probe_python(double timeout_s, const std::string& python = "");

}  // namespace kprof
