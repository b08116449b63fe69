// The kernel languages kprof runs, one catalog row each (LanguageRow): names and aliases, the file
// kind, the Python modules to import and probe, the pip hint, the library path markers and the
// kernel-name prefixes. env, readiness, the reports, hot lines, the sanitizer, loading and the
// faces' choices iterate the rows (language_rows()); a new language is one row plus its loader.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// cuda-cpp and cutlass: a .cu compiled to a .so exposing extern "C" void solve(...).
/// triton and cute-dsl: a .py module defining setup(**kwargs) and run_kernel(**kwargs).
/// The value of a row added at run time (a test's ScopedLanguageRow) is any other number.
enum class Implementation { CudaCpp, Cutlass, Triton, CuteDsl };

/// What a kernel file of the language is, and so which loader runs it.
enum class FileKind {
  CudaSource,    ///< a .cu compiled by nvcc to a .so exposing extern "C" void solve(...) (kernel/so_kernel)
  PythonModule,  ///< a .py module defining setup(**kwargs) and run_kernel(**kwargs) (kernel/py_kernel)
};

/// One language's traits: the one place each fact about it is written.
struct LanguageRow {
  Implementation impl;
  std::string name;                  ///< "cute-dsl": --implementation's choice, the JSON value, the Python/MCP enum
  std::string display;               ///< "CuTe DSL": how reports name it
  std::vector<std::string> aliases;  ///< other spellings --implementation accepts ("cute_dsl", "cutedsl")
  FileKind file = FileKind::CudaSource;
  bool cutlass_headers = false;  ///< its kernels need the CUTLASS C++ headers (kernel/cutlass.hpp's locator)
  /// Python modules a version imports that later versions and ref.py share, in import order
  /// ("torch", "cutlass.cute"); the runner imports them before ncu attaches. Empty: none.
  std::vector<std::string> modules;
  /// The module env imports to say the language is ready ("cutlass.cute"); "" when the language
  /// needs no Python package (its toolchain is nvcc).
  std::string probe_module;
  std::string probe_key;     ///< env_check.json's key under python ("cute_dsl"); "" without a probe
  std::string distribution;  ///< the PyPI distribution whose version env reports ("nvidia-cutlass-dsl")
  std::string pip_hint;      ///< "pip install nvidia-cutlass-dsl"
  /// Parts of a source path that mark the language's own library code, not the user's
  /// ("/site-packages/triton/"): hot lines attribute such lines to the user's line before them.
  std::vector<std::string> library_markers;
  /// Prefixes of kernel names the language's library generates ("triton_poi_"): the sanitizer
  /// counts reports in them as library reports.
  std::vector<std::string> kernel_prefixes;
};

/// Every row, in the order the CLI lists them (cuda-cpp, cutlass, triton, cute-dsl, then rows
/// added by a ScopedLanguageRow).
const std::vector<LanguageRow>& language_rows();

/// The row of `impl`. Throws Error (exit 2) for a value no row holds.
const LanguageRow& language_row(Implementation impl);

/// The names of every row joined by `sep` ("cuda-cpp, cutlass, triton, cute-dsl").
std::string language_names(const std::string& sep = ", ");

/// The names of the rows whose file kind is `kind`, joined by `sep` ("triton or cute-dsl").
std::string language_names_of(FileKind kind, const std::string& sep = " or ");

/// Adds `row` to language_rows() for this object's lifetime (tests: a pretend language shows that
/// env, readiness, the reports and hot lines follow the rows). Not thread-safe against readers.
class ScopedLanguageRow {
 public:
  explicit ScopedLanguageRow(LanguageRow row);
  ~ScopedLanguageRow();
  ScopedLanguageRow(const ScopedLanguageRow&) = delete;
  ScopedLanguageRow& operator=(const ScopedLanguageRow&) = delete;

 private:
  Implementation impl_;
};

/// "cuda-cpp", "cutlass", "triton", "cute-dsl" (the row's name).
std::string implementation_name(Implementation impl);

/// Parses a name as given to --implementation / --backend (a row's name or alias, any case).
/// Throws Error (exit 2) listing the accepted names otherwise.
Implementation parse_implementation(const std::string& name);

/// The seed's default: triton for a .py file, cuda-cpp for anything else.
Implementation default_implementation(const std::string& kernel_path);

/// Resolves --implementation: `name` when given (non-empty), else the default for the file.
/// Throws Error (exit 2) when a .py file is paired with a CUDA-source language or a non-.py with
/// a Python-module one.
Implementation resolve_implementation(const std::string& name, const std::string& kernel_path);

/// True for the languages whose kernels are Python modules (triton, cute-dsl).
bool is_python_impl(Implementation impl);

/// The row's `modules`: torch and triton (triton), torch and cutlass.cute (cute-dsl); none for
/// cuda-cpp and cutlass.
std::vector<std::string> shared_python_modules(Implementation impl);

}  // namespace kprof
