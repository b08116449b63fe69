// The seed's four kernel implementations and how a kernel file maps to one.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// cuda-cpp and cutlass: a .cu compiled to a .so exposing extern "C" void solve(...).
/// triton and cute-dsl: a .py module defining setup(**kwargs) and run_kernel(**kwargs).
enum class Implementation { CudaCpp, Cutlass, Triton, CuteDsl };

/// "cuda-cpp", "cutlass", "triton", "cute-dsl".
std::string implementation_name(Implementation impl);

/// Parses a name as given to --implementation / --backend. Throws Error (exit 2) listing the four
/// accepted names otherwise.
Implementation parse_implementation(const std::string& name);

/// The seed's default: triton for a .py file, cuda-cpp for anything else.
Implementation default_implementation(const std::string& kernel_path);

/// Resolves --implementation: `name` when given (non-empty), else the default for the file.
/// Throws Error (exit 2) when a .py file is paired with cuda-cpp/cutlass or a non-.py with
/// triton/cute-dsl.
Implementation resolve_implementation(const std::string& name, const std::string& kernel_path);

/// True for triton and cute-dsl (Python modules).
inline bool is_python_impl(Implementation impl) {
  return impl == Implementation::Triton || impl == Implementation::CuteDsl;
}

/// The Python packages a version of `impl` imports that the run's later versions (and ref.py's
/// torch) share, in import order: torch and triton (triton), torch and cutlass.cute (cute-dsl);
/// none for cuda-cpp and cutlass.
std::vector<std::string> shared_python_modules(Implementation impl);

}  // namespace kprof
