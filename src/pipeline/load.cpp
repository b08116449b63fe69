#include "pipeline/load.hpp"

#include <fmt/format.h>

#include <map>

#include "core/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "kernel/build.hpp"
#include "kernel/library.hpp"
#include "kernel/so_kernel.hpp"
#include "python/interpreter.hpp"
#include "python/py_kernel.hpp"

namespace kprof {

std::unique_ptr<KernelInstance> load_kernel(const KernelSpec& spec, double extra_copies) {
  Implementation impl = spec_implementation(spec);
  gpu_description(spec.gpu);  // cache it while the GPU is healthy
  if (is_python_impl(impl)) {
    ensure_python();
    python_select_gpu(spec.gpu);
    return load_py_kernel(spec.kernel, impl, spec.dims);
  }
  if (spec.build) {
    std::string so = spec.so_path.empty() ? default_so_path(spec.kernel) : spec.so_path;
    if (needs_rebuild(spec.kernel, so)) {
      BuildOptions b;
      b.source = spec.kernel;
      b.impl = impl;
      b.arch = spec.arch;
      b.gpu = spec.gpu;
      b.output = so;
      print_progress("building " + so + " (--build: missing or older than " + spec.kernel + ")");
      build_kernel(b);
    }
  }
  SoKernelOptions o;
  o.kernel_path = spec.kernel;
  o.so_path = spec.so_path;
  o.implementation = impl;
  o.dims = spec.dims;
  o.size_exprs = spec.sizes;
  if (spec.ptr_size > 0) o.ptr_size = spec.ptr_size;
  o.extra_copies = extra_copies;
  return load_so_kernel(o);
}

std::string gpu_description(int gpu) {
  static std::map<int, std::string> cache;  // filled before any kernel runs: no CUDA call after a fault
  auto it = cache.find(gpu);
  if (it != cache.end()) return it->second;
  return cache[gpu] = fmt::format("{} ({}), device {}", gpu_name(gpu), gpu_arch(gpu), gpu);
}

std::vector<std::pair<std::string, std::string>> kernel_header_rows(const KernelSpec& spec,
                                                                    const KernelInstance& inst) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Kernel", spec.kernel},
      {"Implementation", implementation_name(inst.implementation())},
      {"Signature", inst.signature()},
      {"GPU", gpu_description(spec.gpu)},
      {"Dimensions", spec.dims.to_string().empty() ? "(none)" : spec.dims.to_string()},
      {"Seed", std::to_string(spec.seed)},
  };
  for (const auto& b : inst.buffers())
    rows.push_back({"Buffer " + b.name, fmt::format("{} x {} ({}), {}", dtype_name(b.dtype), b.count,
                                                     fmt_bytes(static_cast<double>(b.count * dtype_size(b.dtype))),
                                                     b.is_output ? "output" : "input")});
  rows.push_back({"Date", now_string()});
  rows.push_back({"kprof", KPROF_VERSION});
  return rows;
}

}  // namespace kprof
