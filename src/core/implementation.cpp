#include "core/implementation.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {

/// The catalog. Sources: the seed (names, file kinds), PyPI (distributions, pip hints), the
/// libraries' install layouts (markers), PyTorch Inductor's kernel names (triton_poi_ ...).
std::vector<LanguageRow>& rows() {
  static std::vector<LanguageRow> r = {
      {Implementation::CudaCpp,
       "cuda-cpp",
       "CUDA C++",
       {"cuda", "cpp"},
       FileKind::CudaSource,
       false,
       {},
       "",
       "",
       "",
       "",
       {"/cub/", "/thrust/", "/cccl/", "/include/crt/"},
       {"cub::", "thrust::", "CUB_"}},
      {Implementation::Cutlass,
       "cutlass",
       "CUTLASS",
       {},
       FileKind::CudaSource,
       true,
       {},
       "",
       "",
       "",
       "",
       {"/cutlass/", "/cute/"},
       {"fmha_cutlass"}},
      {Implementation::Triton,
       "triton",
       "Triton",
       {},
       FileKind::PythonModule,
       false,
       {"torch", "triton"},
       "triton",
       "triton",
       "triton",
       "pip install triton",
       {"/site-packages/triton/", "/dist-packages/triton/"},
       {"triton_poi_", "triton_red_", "triton_per_", "triton_tem_"}},
      {Implementation::CuteDsl,
       "cute-dsl",
       "CuTe DSL",
       {"cute_dsl", "cutedsl"},
       FileKind::PythonModule,
       false,
       {"torch", "cutlass.cute"},
       "cutlass.cute",
       "cute_dsl",
       "nvidia-cutlass-dsl",
       "pip install nvidia-cutlass-dsl",
       {},
       {}},
  };
  return r;
}

}  // namespace

const std::vector<LanguageRow>& language_rows() { return rows(); }

const LanguageRow& language_row(Implementation impl) {
  for (const auto& r : rows())
    if (r.impl == impl) return r;
  throw usage_error("no language row for implementation " + std::to_string(static_cast<int>(impl)),
                    "use one of: " + language_names());
}

std::string language_names(const std::string& sep) {
  std::string out;
  for (const auto& r : rows()) out += (out.empty() ? "" : sep) + r.name;
  return out;
}

std::string language_names_of(FileKind kind, const std::string& sep) {
  std::string out;
  for (const auto& r : rows())
    if (r.file == kind) out += (out.empty() ? "" : sep) + r.name;
  return out;
}

ScopedLanguageRow::ScopedLanguageRow(LanguageRow row) : impl_(row.impl) { rows().push_back(std::move(row)); }

ScopedLanguageRow::~ScopedLanguageRow() {
  auto& r = rows();
  r.erase(std::remove_if(r.begin(), r.end(), [&](const LanguageRow& x) { return x.impl == impl_; }), r.end());
}

std::string implementation_name(Implementation impl) {
  for (const auto& r : rows())
    if (r.impl == impl) return r.name;
  return "?";
}

Implementation parse_implementation(const std::string& raw) {
  std::string n = to_lower(trim(raw));
  for (const auto& r : rows()) {
    if (n == r.name) return r.impl;
    for (const auto& a : r.aliases)
      if (n == a) return r.impl;
  }
  throw usage_error("unknown implementation '" + raw + "'", "use one of: " + language_names());
}

Implementation default_implementation(const std::string& kernel_path) {
  return ends_with(to_lower(kernel_path), ".py") ? Implementation::Triton : Implementation::CudaCpp;
}

bool is_python_impl(Implementation impl) { return language_row(impl).file == FileKind::PythonModule; }

Implementation resolve_implementation(const std::string& name, const std::string& kernel_path) {
  if (name.empty()) return default_implementation(kernel_path);
  Implementation impl = parse_implementation(name);
  bool py = ends_with(to_lower(kernel_path), ".py");
  if (py && !is_python_impl(impl))
    throw usage_error("'" + kernel_path + "' is a Python file but --implementation is " + implementation_name(impl),
                      "use --implementation " + language_names_of(FileKind::PythonModule) + " for a .py kernel");
  if (!py && is_python_impl(impl))
    throw usage_error(
        "--implementation " + implementation_name(impl) + " needs a .py module, got '" + kernel_path + "'",
        "use --implementation " + language_names_of(FileKind::CudaSource) + " for a .cu kernel");
  return impl;
}

std::vector<std::string> shared_python_modules(Implementation impl) { return language_row(impl).modules; }

}  // namespace kprof
