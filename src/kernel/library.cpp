#include "kernel/library.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "kernel/cutlass.hpp"
#include "kernel/build.hpp"
#include "kernel/elf_check.hpp"

namespace kprof {

std::string default_so_path(const std::string& kernel_path) {
  if (kernel_path.find('/') == std::string::npos) return file_stem(kernel_path) + ".so";
  return join_path(parent_dir(kernel_path), file_stem(kernel_path) + ".so");
}

std::string build_arch_for_hints() {
  if (!cuda_unavailable_reason().empty()) return "sm_90";
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return "sm_90";
  }
  std::string arch = gpu_arch(dev);
  return arch == "sm_00" ? "sm_90" : arch;
}

std::string nvcc_build_line(const std::string& kernel_path, const std::string& so_path, const std::string& arch,
                            Implementation impl, const std::vector<std::string>& extra) {
  // The same argv `kprof build` runs (nvcc_command). CUTLASS's root: the first of CUTLASS_PATH /
  // CUTLASS_ROOT / CUTLASS_HOME that is set, else a placeholder written out as $CUTLASS_PATH so the
  // line still says what to fill in (a token shell_quote leaves unquoted, replaced after joining).
  const std::string placeholder = "@CUTLASS_PATH@";
  std::string root;
  if (impl == Implementation::Cutlass) {
    auto roots = CutlassSearch::from_environment().env_roots;
    root = roots.empty() ? placeholder : roots.front().second;
  }
  const CutlassInstall cutlass{join_path(root, "include"), join_path(root, "tools/util/include"), "", ""};
  std::string line =
      shell_join(nvcc_command("nvcc", kernel_path, so_path, arch, impl, root.empty() ? nullptr : &cutlass, extra));
  for (size_t at = line.find(placeholder); at != std::string::npos; at = line.find(placeholder, at))
    line.replace(at, placeholder.size(), "$CUTLASS_PATH");
  return line;
}

std::string build_hint(const std::string& kernel_path, const std::string& so_path, const std::string& arch,
                       Implementation impl, const std::vector<std::string>& extra) {
  return "build it with: " + nvcc_build_line(kernel_path, so_path, arch, impl, extra) + "  (or run `kprof build " +
         shell_quote(kernel_path) + "`, or add --build to this command)";
}

std::string find_mangled_solve(const std::string& bytes) {
  const std::string key = "_Z5solve";
  size_t at = bytes.find(key);
  if (at == std::string::npos) return "";
  size_t end = at;
  while (end < bytes.size() && (std::isalnum(static_cast<unsigned char>(bytes[end])) || bytes[end] == '_')) ++end;
  return bytes.substr(at, end - at);
}

std::unique_ptr<KernelLibrary> KernelLibrary::open(const std::string& so_path, const std::string& hint) {
  std::string path = absolute_path(so_path);  // a bare name would make dlopen search the system
  check_kernel_library_file(so_path, hint);   // never dlopen a file that is not a library with `solve`
  dlerror();
  // RTLD_NODELETE: dlclose() keeps the code mapped. A kernel .so usually carries its own static
  // cudart, whose teardown must run at process exit (as with Python's ctypes), not mid-run.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char* why = dlerror();
    throw usage_error(
        "cannot load kernel library " + so_path + ": " + (why ? why : "unknown dlopen error"),
        "rebuild it for this machine (x86_64 / this CUDA) and link what it uses (e.g. -lcublas); " + hint);
  }
  dlerror();
  void* solve = dlsym(handle, "solve");
  if (!solve) {
    dlclose(handle);
    std::string mangled;
    try {
      mangled = find_mangled_solve(read_file(path));
    } catch (const Error&) {
    }
    throw_no_solve(so_path, mangled, hint);
  }
  return std::unique_ptr<KernelLibrary>(new KernelLibrary(handle, solve, path));
}

KernelLibrary::~KernelLibrary() {
  if (handle_) dlclose(handle_);
}

void* KernelLibrary::symbol(const std::string& name) const {
  dlerror();
  return dlsym(handle_, name.c_str());
}

}  // namespace kprof
