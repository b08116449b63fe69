// Locating the CUTLASS C++ headers (for the `cutlass` implementation and `kprof build`).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kprof {

/// A CUTLASS header install.
struct CutlassInstall {
  std::string include_dir;       ///< holds cutlass/cutlass.h (and cute/)
  std::string util_include_dir;  ///< tools/util/include (cutlass/util/...), "" when absent
  std::string version;           ///< "4.2.0" from cutlass/version.h, "unknown" when unreadable
  std::string source;            ///< where it came from: "CUTLASS_PATH", "/opt/cutlass", "pip nvidia-cutlass 4.2.0.0"
};

/// Where to look, in order. from_environment() fills it from the process.
struct CutlassSearch {
  /// (variable, value) for CUTLASS_PATH, CUTLASS_ROOT, CUTLASS_HOME, in that order; only set ones.
  std::vector<std::pair<std::string, std::string>> env_roots;
  /// CUTLASS source/install roots holding include/ (and tools/util/include/).
  std::vector<std::string> standard_roots = {"/usr/local/cutlass", "/opt/cutlass"};
  /// Include folders that may hold cutlass/cutlass.h directly.
  std::vector<std::string> include_dirs = {"/usr/include", "/usr/local/include"};
  /// site-packages/cutlass_library/source of the nvidia-cutlass pip package, "" when unknown.
  std::string pip_source;
  std::string pip_version;  ///< version of that package, for the report

  /// The variables of this process and the default standard places; no pip lookup.
  static CutlassSearch from_environment();
};

/// The outcome of a search.
struct CutlassLookup {
  std::optional<CutlassInstall> found;
  /// When not found: why, in one line, naming the variable to set ("CUTLASS_PATH=/x has no
  /// include/cutlass/cutlass.h" or "no CUTLASS headers in CUTLASS_PATH, ..., /usr/local/include").
  std::string error;
  std::string fix;  ///< what to do, one line
};

/// Searches in order: the first set variable of CUTLASS_PATH, CUTLASS_ROOT, CUTLASS_HOME (a set
/// variable that points to no headers is an error: the search stops there, naming it), then the
/// standard roots, the include folders, and the pip package.
CutlassLookup locate_cutlass(const CutlassSearch& search);

/// "4.2.0" from the CUTLASS_MAJOR / CUTLASS_MINOR / CUTLASS_PATCH defines of
/// <include_dir>/cutlass/version.h; "unknown" when the file or a define is missing.
std::string cutlass_version(const std::string& include_dir);

/// The site-packages/cutlass_library/source folder of the nvidia-cutlass pip package installed
/// in `python` (default: the Python kprof embeds), found by a short subprocess with a limit of
/// `timeout_s` seconds; "" when absent.
std::string find_cutlass_pip_source(double timeout_s = 30, const std::string& python = "");

/// locate_cutlass(CutlassSearch::from_environment()), and when that finds nothing and no variable
/// is set, again with the pip package's folder (find_cutlass_pip_source()).
CutlassLookup locate_cutlass();

}  // namespace kprof
