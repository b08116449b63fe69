#include "kernel/load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "kernel/build.hpp"
#include "kernel/build_record.hpp"
#include "kernel/elf_check.hpp"
#include "kernel/library.hpp"
#include "kernel/so_kernel.hpp"
#include "python/interpreter.hpp"
#include "kernel/py_kernel.hpp"
#include "kernel/source_check.hpp"

namespace kprof {

namespace {

SoKernelOptions so_options(const KernelSpec& spec, Implementation impl, double extra_copies) {
  SoKernelOptions o;
  o.kernel_path = spec.kernel;
  o.so_path = spec.so_path;
  o.implementation = impl;
  o.dims = spec.dims;
  o.size_exprs = spec.sizes;
  if (spec.ptr_size > 0) o.ptr_size = spec.ptr_size;
  o.arch = spec.arch;
  o.nvcc_flags = spec.nvcc_flags;
  o.build = spec.build;
  o.extra_copies = extra_copies;
  return o;
}

/// --build rebuilds when the .so is missing or older than the .cu, or when kprof built it with
/// other `--` flags than these (its build record says).
bool build_needed(const KernelSpec& spec, const std::string& so) {
  if (needs_rebuild(spec.kernel, so)) return true;
  auto rec = read_build_record(so, spec.kernel);
  return rec && rec->extra_flags != spec.nvcc_flags;
}

/// Python kernels: a dimension that looks like a kprof option is an error unless setup() takes a
/// parameter of that name (read with ast); with setup(**kwargs) only, it stays a dimension with a note.
void check_python_dimensions(const KernelSpec& spec) {
  if (spec.dim_notes.empty()) return;
  auto params = python_function_params(spec.kernel, "setup");
  for (const auto& [name, note] : spec.dim_notes) {
    const Dim& d = spec.dims.get(name);
    if (params && std::find(params->begin(), params->end(), name) != params->end()) continue;
    if (params && std::find(params->begin(), params->end(), "**") == params->end())
      throw usage_error(fmt::format("--{}={} is not a parameter of setup() in {}: {}", name, d.text, spec.kernel, note),
                        "kprof reads every --NAME=VALUE it does not know as one of the kernel's dimensions; "
                        "run " +
                            command_help(spec) + " for its options");
    print_progress(fmt::format("note: --{}={} goes to setup() as a dimension; {}", name, d.text, note));
  }
}

/// Every identifier in the --size expressions (the words after '=').
std::set<std::string> names_in_sizes(const std::vector<std::string>& sizes) {
  std::set<std::string> out;
  for (const auto& sz : sizes) {
    size_t eq = sz.find('=');
    std::string expr = eq == std::string::npos ? sz : sz.substr(eq + 1);
    std::string word;
    for (char c : expr + " ") {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        word += c;
      } else {
        if (!word.empty() && !std::isdigit(static_cast<unsigned char>(word[0]))) out.insert(word);
        word.clear();
      }
    }
  }
  return out;
}

/// Dimensions that are not solve() parameters: an error when the name looks like a kprof option
/// (spec.dim_notes: `--iter=5` for --iters), else a note that it only sizes buffers.
void check_dimensions_used(const KernelSpec& spec, const Signature& sig) {
  std::set<std::string> params;
  for (const auto& p : sig.params)
    if (!p.is_pointer) params.insert(p.name);
  const auto sized = names_in_sizes(spec.sizes);
  for (const auto& d : spec.dims.all()) {
    if (params.count(d.name) || sized.count(d.name)) continue;
    auto note = spec.dim_notes.find(d.name);
    if (note != spec.dim_notes.end())
      throw usage_error(
          fmt::format("--{}={} is not a parameter of {}: {}", d.name, d.text, sig.to_string(), note->second),
          "kprof reads every --NAME=VALUE it does not know as one of the kernel's dimensions; "
          "run " +
              command_help(spec) + " for its options");
    print_progress(
        fmt::format("note: --{}={} is not a parameter of {}; it only sizes buffers (one int "
                    "dimension gives every buffer's element count, several the product of the two "
                    "largest; --size NAME=EXPR sets one buffer)",
                    d.name, d.text, sig.to_string()));
  }
}

}  // namespace

BuildOptions build_options(const KernelSpec& spec) {
  const Implementation impl = spec_implementation(spec);
  BuildOptions b;
  b.source = spec.kernel;
  b.impl = impl;
  b.arch = spec.arch;
  b.gpu = spec.gpu;
  b.output = spec.so_path.empty() ? default_so_path(spec.kernel) : spec.so_path;
  b.extra_flags = spec.nvcc_flags;
  return b;
}

void validate_spec(const KernelSpec& spec) {
  Implementation impl = spec_implementation(spec);
  if (!path_exists(spec.kernel)) throw usage_error("kernel file '" + spec.kernel + "' not found");
  if (is_python_impl(impl)) {  // read with ast: a syntax error or a missing setup/run_kernel is exit 2 here
    if (!spec.so_path.empty())
      throw usage_error("--so " + spec.so_path + " was given for the Python kernel " + spec.kernel,
                        "a " + language_names_of(FileKind::PythonModule, " / ") +
                            " kernel is a .py module and loads no .so: drop --so for it");
    check_kernel_module_source(spec.kernel);
    check_python_dimensions(spec);
    return;
  }
  std::string ext = to_lower(spec.kernel.substr(
      spec.kernel.find_last_of('.') == std::string::npos ? spec.kernel.size() : spec.kernel.find_last_of('.')));
  if (ext != ".cu" && ext != ".cuh" && ext != ".cpp" && ext != ".cc" && ext != ".cxx")
    throw usage_error("'" + spec.kernel + "' is not a CUDA source file (.cu)",
                      "pass the kernel's .cu (it defines extern \"C\" void solve(...)), or a .py module with "
                      "--implementation " +
                          language_names_of(FileKind::PythonModule, " / "));
  const SoKernelOptions so = so_options(spec, impl, 0.0);
  SignatureReading reading = read_kernel_signature(so);  // where solve() is and how it was read, first
  print_progress(reading.how);
  for (const auto& n : reading.notes) print_progress("note: " + n);
  SoKernelPlan plan = plan_so_kernel(so);  // dimensions, --size
  check_dimensions_used(spec, plan.signature);
  // The library, read as ELF without loading it; with --build only when it will not be rebuilt.
  if (!spec.build || (path_exists(plan.so_path) && !build_needed(spec, plan.so_path)))
    check_kernel_library_file(
        plan.so_path, build_hint(spec.kernel, plan.so_path, spec.arch.empty() ? build_arch_for_hints() : spec.arch,
                                 impl, spec.nvcc_flags));
}

void select_gpu_for(const KernelSpec& spec) {
  try {
    select_gpu(spec.gpu);
  } catch (const Error&) {
    // Only with --arch: without it the build needs the GPU too, and the GPU's error is the one to say.
    if (spec.build && !spec.arch.empty() && !is_python_impl(spec_implementation(spec)))
      build_kernel(build_options(spec));
    throw;
  }
}

std::unique_ptr<KernelInstance> load_kernel(const KernelSpec& spec, double extra_copies) {
  Implementation impl = spec_implementation(spec);
  gpu_description(spec.gpu);  // cache it while the GPU is healthy
  if (is_python_impl(impl)) {
    ensure_python();
    python_select_gpu(spec.gpu);
    return load_py_kernel(spec.kernel, impl, spec.dims);
  }
  SoKernelOptions so = so_options(spec, impl, extra_copies);
  if (spec.build) {
    BuildResult r = build_kernel(build_options(spec));  // compiles only when its inputs changed
    if (r.how == "compiled") print_progress(r.output + ": " + build_how_text(r));
    so.build = false;  // the .so and its record now match the source, whatever the file times say
  }
  return load_so_kernel(so);
}

std::string gpu_description(int gpu) {
  static std::map<int, std::string> cache;  // filled before any kernel runs: no CUDA call after a fault
  auto it = cache.find(gpu);
  if (it != cache.end()) return it->second;
  return cache[gpu] = fmt::format("{} ({}), device {}", gpu_name(gpu), gpu_arch(gpu), gpu);
}

std::vector<std::pair<std::string, std::string>> kernel_header_rows(const KernelSpec& spec, const KernelInstance& inst,
                                                                    const std::string& reference) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"Kernel", spec.kernel},
      {"Implementation", implementation_name(inst.implementation())},
      {"Signature", inst.signature()},
      {"GPU", gpu_description(spec.gpu)},
      {"Dimensions", spec.dims.to_string().empty() ? "(none)" : spec.dims.to_string()},
      {"Seed", std::to_string(spec.seed)},
  };
  if (!reference.empty()) rows.insert(rows.begin() + 3, {"Reference", reference});
  if (const auto* so = dynamic_cast<const SoKernel*>(&inst))  // which #if branch, which nvcc flags
    rows.insert(rows.begin() + (reference.empty() ? 3 : 4), {"Signature read", so->signature_reading().how});
  for (const auto& b : inst.buffers())
    rows.push_back({"Buffer " + b.name, fmt::format("{} x {} ({}), {}", dtype_name(b.dtype), b.count,
                                                    fmt_bytes(static_cast<double>(b.count * dtype_size(b.dtype))),
                                                    b.is_output ? "output" : "input")});
  rows.push_back({"Date", now_string()});
  rows.push_back({"kprof", KPROF_VERSION});
  return rows;
}

}  // namespace kprof
