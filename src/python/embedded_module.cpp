#include "python/embedded_module.hpp"

#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"

namespace kprof {

namespace {

// Guarded by the GIL (every access holds it; no mutex: exec may release the GIL, and a thread waiting
// on a mutex while holding the GIL would deadlock). Leaked on purpose (Python is never finalized): no
// Python object may die in static destruction.
std::map<std::string, py::object*>* g_modules = new std::map<std::string, py::object*>();

/// The module `name` built from `source` (GIL held). Two threads building it at once both succeed;
/// the first one stored is kept.
py::object& module_for(const std::string& name, const char* source) {
  auto it = g_modules->find(name);
  if (it != g_modules->end()) return *it->second;
  py::object types = py::module_::import("types");
  py::object mod = types.attr("ModuleType")(name);
  py::object builtins = py::module_::import("builtins");
  py::object code = builtins.attr("compile")(source, "<" + name + ">", "exec");
  builtins.attr("exec")(code, mod.attr("__dict__"));
  it = g_modules->find(name);
  if (it == g_modules->end()) it = g_modules->emplace(name, new py::object(mod)).first;
  return *it->second;
}

}  // namespace

nlohmann::json call_embedded_python(const std::string& module_name, const char* source, const std::string& function,
                                    const nlohmann::json& arg) {
  ensure_python();
  py::gil_scoped_acquire gil;
  try {
    py::object& mod = module_for(module_name, source);
    py::module_ json = py::module_::import("json");
    py::object py_arg = json.attr("loads")(arg.dump());
    py::object result = mod.attr(function.c_str())(py_arg);
    // ensure_ascii=False and surrogateescape: a string that came from bytes that are not UTF-8 (a
    // Latin-1 source file inside a .ncu-rep) reaches C++ as those bytes, then escaped the one way
    // every report escapes them (core/text.hpp escape_foreign_bytes), instead of a lone surrogate
    // ("\udcff") that is not JSON nlohmann accepts.
    py::object dumped = json.attr("dumps")(result, py::arg("default") = py::module_::import("builtins").attr("str"),
                                           py::arg("ensure_ascii") = false);
    py::object raw;
    try {
      raw = dumped.attr("encode")("utf-8", "surrogateescape");
    } catch (const py::error_already_set&) {  // a surrogate not from bytes: written as \udXXX
      raw = dumped.attr("encode")("utf-8", "backslashreplace");
    }
    return nlohmann::json::parse(escape_foreign_bytes(raw.cast<std::string>(), /*json_text=*/true));
  } catch (const py::error_already_set& e) {
    throw check_failed(module_name + "." + function + " failed: " + describe_python_error(e, ""),
                       "this is kprof's own Python code; run with KPROF_PY_TRACEBACK=1 for the traceback");
  } catch (const nlohmann::json::exception& e) {
    throw check_failed(module_name + "." + function + " returned text that is not JSON: " + e.what());
  }
}

}  // namespace kprof
