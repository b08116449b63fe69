#include "stages/verify/work_model.hpp"

#include <fmt/format.h>

#include <cmath>
#include <regex>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"

namespace kprof {

bool declares_work(const std::string& ref_path) {
  if (!path_exists(ref_path)) return false;
  static const std::regex def(R"((^|\n)def\s+(flops|bytes_moved)\s*\()");
  return std::regex_search(read_file(ref_path), def);
}

namespace {

std::string call_text(const char* fn, const std::map<std::string, double>& ints,
                      const std::map<std::string, double>& floats) {
  std::string args;
  for (const auto& [k, v] : ints)
    args += (args.empty() ? "" : ", ") + fmt::format("{}={}", k, static_cast<long long>(v));
  for (const auto& [k, v] : floats) args += (args.empty() ? "" : ", ") + fmt::format("{}={}", k, v);
  return fmt::format("ref.py {}({})", fn, args);
}

std::optional<double> call_number(py::module_& m, const char* fn, const py::dict& kwargs, const std::string& path,
                                  std::string& how, const std::string& text) {
  if (!py::hasattr(m, fn)) return std::nullopt;
  py::object result;
  try {
    result = m.attr(fn)(**kwargs);
  } catch (py::error_already_set& e) {
    throw_python_error(e, path, std::string("ref.py ") + fn + " raised an exception",
                       std::string("fix `") + fn + "(**dims)` in ref.py: it must return a number");
  }
  double v = std::nan("");
  if (py::isinstance<py::int_>(result) || py::isinstance<py::float_>(result)) v = result.cast<double>();
  if (py::isinstance<py::bool_>(result) || !(v >= 0) || std::isinf(v))
    throw usage_error(fmt::format("{}: {} returned {}, not a number >= 0", path, fn, py_a_type(result)),
                      std::string("return the count as an int or float from `") + fn + "(**dims)`");
  how = fmt::format("{} = {:.4g}", text, v);
  return v;
}

}  // namespace

DeclaredWork declared_work(const std::string& ref_path, const std::map<std::string, double>& int_dims,
                           const std::map<std::string, double>& float_dims) {
  DeclaredWork w;
  if (!declares_work(ref_path)) return w;
  ensure_python();
  py::gil_scoped_acquire gil;
  py::module_ m = load_module_by_path(ref_path, "work");
  py::dict kwargs;
  for (const auto& [k, v] : int_dims) kwargs[py::str(k)] = py::int_(static_cast<long long>(v));
  for (const auto& [k, v] : float_dims) kwargs[py::str(k)] = py::float_(v);
  w.flops = call_number(m, "flops", kwargs, ref_path, w.flops_how, call_text("flops", int_dims, float_dims));
  w.bytes =
      call_number(m, "bytes_moved", kwargs, ref_path, w.bytes_how, call_text("bytes_moved", int_dims, float_dims));
  return w;
}

}  // namespace kprof
