#include "core/implementation.hpp"

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/enum_names.hpp"

namespace kprof {

/// The names of Implementation (core/enum_names.hpp).
constexpr auto kImplementationNames = enum_names<Implementation>({{Implementation::CudaCpp, "cuda-cpp"},
                                                                  {Implementation::Cutlass, "cutlass"},
                                                                  {Implementation::Triton, "triton"},
                                                                  {Implementation::CuteDsl, "cute-dsl"}},
                                                                 "?");

std::string implementation_name(Implementation impl) { return kImplementationNames.name(impl); }

Implementation parse_implementation(const std::string& raw) {
  std::string n = to_lower(trim(raw));
  if (n == "cuda-cpp" || n == "cuda" || n == "cpp") return Implementation::CudaCpp;
  if (n == "cutlass") return Implementation::Cutlass;
  if (n == "triton") return Implementation::Triton;
  if (n == "cute-dsl" || n == "cute_dsl" || n == "cutedsl") return Implementation::CuteDsl;
  throw usage_error("unknown implementation '" + raw + "'", "use one of: cuda-cpp, cutlass, triton, cute-dsl");
}

Implementation default_implementation(const std::string& kernel_path) {
  return ends_with(to_lower(kernel_path), ".py") ? Implementation::Triton : Implementation::CudaCpp;
}

Implementation resolve_implementation(const std::string& name, const std::string& kernel_path) {
  if (name.empty()) return default_implementation(kernel_path);
  Implementation impl = parse_implementation(name);
  bool py = ends_with(to_lower(kernel_path), ".py");
  if (py && !is_python_impl(impl))
    throw usage_error("'" + kernel_path + "' is a Python file but --implementation is " + implementation_name(impl),
                      "use --implementation triton or cute-dsl for a .py kernel");
  if (!py && is_python_impl(impl))
    throw usage_error(
        "--implementation " + implementation_name(impl) + " needs a .py module, got '" + kernel_path + "'",
        "use --implementation cuda-cpp or cutlass for a .cu kernel");
  return impl;
}

std::vector<std::string> shared_python_modules(Implementation impl) {
  if (impl == Implementation::Triton) return {"torch", "triton"};
  if (impl == Implementation::CuteDsl) return {"torch", "cutlass.cute"};
  return {};
}

}  // namespace kprof
