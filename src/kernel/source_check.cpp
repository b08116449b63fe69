#include "kernel/source_check.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "core/implementation.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"

namespace kprof {

void check_python_source(const std::string& path, const std::vector<std::string>& names, const std::string& syntax_hint,
                         const std::string& missing_hint) {
  if (!ends_with(path, ".py")) return;  // the loader says what is wrong
  try {
    ensure_python();
  } catch (const Error&) {
    return;
  }
  py::gil_scoped_acquire gil;
  for (const auto& name : names) {
    py::object problem;
    try {
      problem = kprof_helpers().attr("source_problem")(path, name);
    } catch (const py::error_already_set&) {
      return;  // unreadable: loading names the cause
    }
    if (py::isinstance<py::str>(problem)) continue;  // ""
    auto t = problem.cast<py::tuple>();
    const int line = t[0].cast<int>();
    const std::string message = t[1].cast<std::string>();
    const std::string text = t[2].cast<std::string>();
    if (line > 0)
      throw usage_error(fmt::format("{}:{}: {}{}", path, line, message, text.empty() ? "" : " in `" + text + "`"),
                        syntax_hint);
    throw usage_error(path + " " + message, missing_hint);
  }
}

void check_kernel_module_source(const std::string& path) {
  check_python_source(path, {"setup", "run_kernel"}, "fix the kernel module (kprof reads it before any GPU work)",
                      "a " + language_names_of(FileKind::PythonModule, " / ") +
                          " kernel module defines setup(**kwargs) returning {\"inputs\": ..., \"outputs\": [...]} "
                          "and run_kernel(**inputs) (docs/REFERENCE.md in the kprof source)");
}

std::optional<std::vector<std::string>> python_function_params(const std::string& path, const std::string& name) {
  if (!ends_with(path, ".py")) return std::nullopt;
  try {
    ensure_python();
  } catch (const Error&) {
    return std::nullopt;
  }
  py::gil_scoped_acquire gil;
  try {
    py::object r = kprof_helpers().attr("function_params")(path, name);
    if (r.is_none()) return std::nullopt;
    return r.cast<std::vector<std::string>>();
  } catch (const py::error_already_set&) {
    return std::nullopt;
  }
}

}  // namespace kprof
