#include "kernel/so_kernel.hpp"

#include <cuda_runtime_api.h>

#include "device/device_buffers.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "kernel/ffi_call.hpp"
#include "kernel/library.hpp"

namespace kprof {
namespace {

/// Sets every scalar argument of `ffi` from its dimension; throws naming all missing --NAME=.
void bind_scalars(FfiCall& ffi, const Signature& sig, const Dims& dims) {
  std::vector<std::string> missing;
  for (const auto& p : sig.params)
    if (!p.is_pointer && !dims.has(p.name)) missing.push_back(p.name);
  if (!missing.empty()) {
    std::string flags, example;
    for (const auto& m : missing) {
      flags += (flags.empty() ? "" : ", ") + ("--" + m + "=");
      example += (example.empty() ? "" : " ") + ("--" + m + "=VALUE");
    }
    throw usage_error(
        "missing dimension" + std::string(missing.size() > 1 ? "s " : " ") + flags + " for " + sig.to_string(),
        "every scalar parameter of solve() is given on the command line: " + example);
  }
  for (size_t i = 0; i < sig.params.size(); ++i)
    if (!sig.params[i].is_pointer) ffi.set_scalar(i, dims.get(sig.params[i].name));
}

}  // namespace

SignatureReading read_kernel_signature(const SoKernelOptions& opts) {
  SignatureRequest req;
  req.kernel_path = opts.kernel_path;
  req.so_path = opts.so_path.empty() ? default_so_path(opts.kernel_path) : opts.so_path;
  req.impl = opts.implementation;
  req.arch = opts.arch;
  req.nvcc_flags = opts.nvcc_flags;
  req.build = opts.build;
  return read_solve_signature(req);
}

SoKernelPlan plan_so_kernel(const SoKernelOptions& opts) {
  if (ends_with(to_lower(opts.kernel_path), ".so"))
    throw usage_error("'" + opts.kernel_path + "' is a library: kprof needs the .cu source to read solve()'s signature",
                      "pass the source and the library: kprof ... K.cu --so " + opts.kernel_path);
  SoKernelPlan plan;
  plan.so_path = opts.so_path.empty() ? default_so_path(opts.kernel_path) : opts.so_path;
  plan.reading = read_kernel_signature(opts);
  plan.signature = plan.reading.signature;
  FfiCall probe(plan.signature);  // validates every scalar's presence, integrality and range
  bind_scalars(probe, plan.signature, opts.dims);
  for (const auto& p : plan.signature.params)
    if (!p.is_pointer) {
      const Dim& d = opts.dims.get(p.name);
      plan.scalars.push_back(ScalarArg{p.name, d.value, !dtype_is_float(p.dtype)});
    }
  plan.buffers = make_buffer_plan(plan.signature, opts.dims, opts.size_exprs, opts.ptr_size);
  return plan;
}

SoKernel::SoKernel(const SoKernelOptions& opts)
    : impl_(opts.implementation), extra_copies_(opts.extra_copies), plan_(plan_so_kernel(opts)) {
  if (is_python_impl(impl_))
    throw usage_error("a .so kernel is cuda-cpp or cutlass, not " + implementation_name(impl_),
                      "use --implementation cuda-cpp (or cutlass) for a .cu file");
  std::string hint = build_hint(opts.kernel_path, plan_.so_path, build_arch_for_hints(), impl_, opts.nvcc_flags);
  lib_ = KernelLibrary::open(plan_.so_path, hint);
  // cudaError_t is an int-sized enum: read the library's own runtime error through its symbol.
  void* own = lib_->symbol("cudaGetLastError");
  if (own && own != reinterpret_cast<void*>(&::cudaGetLastError))
    lib_get_last_error_ = reinterpret_cast<int (*)()>(own);
  double so_time = file_mtime(plan_.so_path), cu_time = file_mtime(opts.kernel_path);
  if (so_time >= 0 && cu_time > so_time)
    print_warning(plan_.so_path + " is older than " + opts.kernel_path + " (it may miss your latest edits); rebuild: " +
                  nvcc_build_line(opts.kernel_path, plan_.so_path, build_arch_for_hints(), impl_, opts.nvcc_flags));
  ffi_ = std::make_unique<FfiCall>(plan_.signature);
  bind_scalars(*ffi_, plan_.signature, opts.dims);
}

SoKernel::~SoKernel() = default;

const std::string& SoKernel::so_path() const { return lib_->path(); }

void SoKernel::prepare(uint64_t seed) {
  if (!bufs_) bufs_ = std::make_unique<DeviceBuffers>(plan_.buffers, extra_copies_);
  bufs_->fill_seeded(seed);
  bufs_->arm_guards();
}

std::vector<BufferView> SoKernel::buffers() const { return bufs_ ? bufs_->views() : std::vector<BufferView>{}; }

void SoKernel::call() {
  if (!bufs_) throw usage_error("internal: SoKernel::call() before prepare()");
  const auto& specs = plan_.buffers.buffers;
  for (size_t b = 0; b < specs.size(); ++b) ffi_->set_pointer(specs[b].param_index, bufs_->data(b));
  ffi_->call(lib_->solve());
}

int SoKernel::take_launch_error() { return lib_get_last_error_ ? lib_get_last_error_() : 0; }

std::vector<GuardViolation> SoKernel::check_guards() const {
  return bufs_ ? bufs_->check_guards() : std::vector<GuardViolation>{};
}

void SoKernel::reset_guards() {
  if (bufs_) bufs_->arm_guards();
}

std::unique_ptr<SoKernel> load_so_kernel(const SoKernelOptions& opts) { return std::make_unique<SoKernel>(opts); }

}  // namespace kprof
