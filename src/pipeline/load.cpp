#include "pipeline/load.hpp"

#include <fmt/format.h>

#include "core/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "kernel/so_kernel.hpp"

namespace kprof {

std::unique_ptr<KernelInstance> load_kernel(const KernelSpec& spec, double extra_copies) {
  Implementation impl = spec_implementation(spec);
  if (is_python_impl(impl)) throw usage_error("Python kernels are not wired yet");
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

std::vector<std::pair<std::string, std::string>> kernel_header_rows(const KernelSpec& spec,
                                                                    const KernelInstance& inst) {
  int dev = spec.gpu;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Kernel", spec.kernel},
      {"Implementation", implementation_name(inst.implementation())},
      {"Signature", inst.signature()},
      {"GPU", fmt::format("{} ({}), device {}", gpu_name(dev), gpu_arch(dev), dev)},
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
