// Loading a cuda-cpp / cutlass kernel's shared library and finding its `solve` symbol.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/implementation.hpp"

namespace kprof {

/// The library kprof loads for a kernel source unless --so is given: the sibling with the same
/// base name ("dir/v1.cu" -> "dir/v1.so").
std::string default_so_path(const std::string& kernel_path);

/// The sm_XX to build for: the current GPU's (device/cuda.hpp gpu_arch), or "sm_90" when no GPU
/// is visible. Never throws.
std::string build_arch_for_hints();

/// The exact nvcc line `kprof build` would run (kernel/build.hpp nvcc_command) to build `so_path`
/// from `kernel_path`: `nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=sm_XX -o K.so
/// K.cu`; for cutlass also the include folders (under CUTLASS_PATH / CUTLASS_ROOT / CUTLASS_HOME
/// when set, else written as $CUTLASS_PATH) and CUTLASS's flags. Paths are shell-quoted when needed.
/// `extra`: the user's nvcc flags (`-- flags`), appended as `kprof build` appends them.
std::string nvcc_build_line(const std::string& kernel_path, const std::string& so_path, const std::string& arch,
                            Implementation impl = Implementation::CudaCpp, const std::vector<std::string>& extra = {});

/// The hint every library error carries: the nvcc line plus `kprof build K.cu` / `--build`.
std::string build_hint(const std::string& kernel_path, const std::string& so_path, const std::string& arch,
                       Implementation impl = Implementation::CudaCpp, const std::vector<std::string>& extra = {});

/// A dlopen()ed kernel library (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE); dlclose()d on destruction,
/// but its code stays mapped until exit (its static cudart tears down at exit, as under ctypes).
/// Loading a rebuilt file under the same path in one process therefore still runs the old code.
class KernelLibrary {
 public:
  /// Loads `so_path` and looks up `solve`. `hint` is attached to every error (see build_hint).
  /// Throws usage_error (exit 2):
  ///   - the file does not exist ("kernel library K.so not found");
  ///   - dlopen fails (wrong architecture, undefined symbol, not an ELF file): dlerror's text;
  ///   - there is no `solve` symbol; when the file holds a C++-mangled one (_Z5solve...) the
  ///     message says to declare it extern "C".
  static std::unique_ptr<KernelLibrary> open(const std::string& so_path, const std::string& hint);

  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  /// Address of `solve` (never null).
  void* solve() const { return solve_; }
  /// Address of any exported symbol, or nullptr when absent.
  void* symbol(const std::string& name) const;
  /// The absolute path that was loaded.
  const std::string& path() const { return path_; }

 private:
  KernelLibrary(void* handle, void* solve, std::string path) : handle_(handle), solve_(solve), path_(std::move(path)) {}
  void* handle_ = nullptr;
  void* solve_ = nullptr;
  std::string path_;
};

/// The first C++-mangled `solve` name (starting "_Z5solve") in a file's bytes, or "" when none.
/// Used to tell "you forgot extern \"C\"" apart from "there is no solve at all".
std::string find_mangled_solve(const std::string& file_bytes);

}  // namespace kprof
