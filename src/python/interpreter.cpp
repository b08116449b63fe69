// Starting the embedded interpreter (PyConfig), loading user modules by path.
#include <pybind11/embed.h>

#include "python/interpreter.hpp"

#include "core/host.hpp"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "python/errors.hpp"
#include "python/py_internal.hpp"
#include "core/settings.hpp"

namespace kprof {

extern const char* const kKprofHelpersSource;  // helpers_py.cpp

namespace {

std::mutex g_start_mutex;
std::atomic<bool> g_started{false};
std::optional<Error> g_start_failure;  // guarded by g_start_mutex
// Leaked on purpose: Python is never finalized, so no Python object may be released during
// static destruction (no GIL, possibly no interpreter).
py::module_* g_helpers = nullptr;

std::string built_python_version() { return std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION); }

std::string python_hint() {
  return "kprof embeds Python " + built_python_version() +
         " (built against " KPROF_PYTHON_EXECUTABLE "); set KPROF_PYTHON to a python " + built_python_version() +
         " executable or a virtual environment's bin/python of that version";
}

// Runs with the GIL held by this thread (right after Py_InitializeFromConfig, or in hosted mode).
void install_helpers(bool redirect_stdout) {
  py::module_ sys = py::module_::import("sys");
  py::module_ types = py::module_::import("types");
  py::object helpers = types.attr("ModuleType")("_kprof");
  py::object code = py::module_::import("builtins").attr("compile")(kKprofHelpersSource, "<kprof-helpers>", "exec");
  py::module_::import("builtins").attr("exec")(code, helpers.attr("__dict__"));
  sys.attr("modules")["_kprof"] = helpers;
  // print() in user code must not mix with kprof's machine-readable stdout.
  if (redirect_stdout) sys.attr("stdout") = sys.attr("stderr");
  g_helpers = new py::module_(py::reinterpret_borrow<py::module_>(helpers));
}

void start_python() {
  std::string exe = python_executable();
  std::string mismatch = python_version_mismatch(exe);
  if (!mismatch.empty()) throw usage_error(mismatch, python_hint());
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // Ctrl-C stops kprof as usual
  config.parse_argv = 0;
  // program_name and executable: the interpreter's own path, so getpath finds pyvenv.cfg next to
  // it and sys.executable is a real python (libraries spawn it), not kprof.
  PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, exe.c_str());
  if (!PyStatus_Exception(st)) st = PyConfig_SetBytesString(&config, &config.executable, exe.c_str());
  char arg0[] = "kprof";
  char* argv[] = {arg0};
  if (!PyStatus_Exception(st)) st = PyConfig_SetBytesArgv(&config, 1, argv);
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st)) {
    std::string why = st.err_msg ? st.err_msg : "unknown error";
    if (st.func) why = std::string(st.func) + ": " + why;
    throw check_failed("cannot start the embedded Python (" + exe + "): " + why, python_hint());
  }
  // This thread holds the GIL now.
  std::optional<Error> failure;
  try {
    install_helpers(true);
  } catch (const py::error_already_set& e) {
    failure =
        check_failed(std::string("the embedded Python started but kprof's helpers failed: ") + e.what(), python_hint());
  }
  PyEval_SaveThread();  // release the GIL; the thread state is kept (never finalized)
  if (failure) throw *failure;
}

// Hosted mode: the interpreter runs already; the helpers are installed with the GIL taken from
// whichever thread asks first.
void adopt_host_python() {
  PyGILState_STATE gil = PyGILState_Ensure();
  std::optional<Error> failure;
  try {
    install_helpers(current_host().owns_stdout);
  } catch (const py::error_already_set& e) {
    failure = check_failed(std::string("kprof's Python helpers failed to load: ") + e.what(),
                           "reinstall kprof (pip install --force-reinstall kprof)");
  }
  PyGILState_Release(gil);
  if (failure) throw *failure;
}

}  // namespace

bool python_hosted() { return current_host().python.has_value(); }

std::string python_executable() {
  if (auto hosted = current_host().python) return *hosted;
  std::string p = settings().python;
  if (p.empty()) return KPROF_PYTHON_EXECUTABLE;
  if (p.find('/') == std::string::npos) {
    std::string found = find_on_path(p);
    if (found.empty())
      throw usage_error("KPROF_PYTHON=" + p + " is not on PATH",
                        "set KPROF_PYTHON to the full path of a python executable, or unset it to "
                        "use " KPROF_PYTHON_EXECUTABLE);
    return found;
  }
  if (!path_exists(p))
    throw usage_error("KPROF_PYTHON=" + p + " does not exist",
                      "set KPROF_PYTHON to a python executable (a virtual environment's "
                      "<venv>/bin/python), or unset it to use " KPROF_PYTHON_EXECUTABLE);
  return absolute_path(p);
}

std::string python_version_mismatch(const std::string& executable) {
  std::string bin = parent_dir(executable);
  for (const std::string& dir : {parent_dir(bin), bin}) {
    std::string cfg = join_path(dir, "pyvenv.cfg");
    if (!path_exists(cfg)) continue;
    std::string text;
    try {
      text = read_file(cfg);
    } catch (const Error&) {
      return "";
    }
    for (const std::string& line : split(text, '\n')) {
      size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = to_lower(trim(line.substr(0, eq)));
      if (key != "version" && key != "version_info") continue;
      std::vector<std::string> parts = split(trim(line.substr(eq + 1)), '.');
      if (parts.size() < 2) return "";
      std::string venv = parts[0] + "." + parts[1];
      if (venv == built_python_version()) return "";
      return "the virtual environment of " + executable + " (" + cfg + ") is Python " + venv +
             ", but kprof embeds Python " + built_python_version() + ": its packages cannot load";
    }
    return "";
  }
  return "";
}

void ensure_python() {
  if (g_started.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(g_start_mutex);
  if (g_started.load(std::memory_order_relaxed)) return;
  if (g_start_failure) throw *g_start_failure;
  const bool hosted = python_hosted();
  if (!hosted && Py_IsInitialized())
    throw check_failed("Python was started outside kprof's interpreter module",
                       "start Python only through ensure_python() (src/python/interpreter.hpp)");
  try {
    if (hosted)
      adopt_host_python();  // hosted: the interpreter that imported kprof._core runs already
    else
      start_python();
  } catch (const Error& e) {
    g_start_failure = e;
    throw;
  }
  g_started.store(true, std::memory_order_release);
}

bool python_started() { return g_started.load(std::memory_order_acquire); }

void adopt_python_thread() {
  if (!python_started() || PyGILState_GetThisThreadState() != nullptr) return;
  PyGILState_Ensure();  // creates this thread's state and takes the GIL
  PyEval_SaveThread();  // releases the GIL, keeps the state
}

std::string python_version() {
  ensure_python();
  py::gil_scoped_acquire gil;
  py::module_ platform = py::module_::import("platform");
  return platform.attr("python_version")().cast<std::string>();
}

py::module_ kprof_helpers() {
  if (!g_helpers) throw check_failed("kprof's Python helpers are not loaded (ensure_python() first)");
  return *g_helpers;
}

std::string py_type_name(py::handle obj) { return kprof_helpers().attr("type_name")(obj).cast<std::string>(); }

std::string py_a_type(py::handle obj) {
  std::string name = py_type_name(obj);
  bool vowel = !name.empty() && std::string("aeiouAEIOU").find(name[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + name;
}

py::module_ load_module_by_path(const std::string& path, const std::string& role) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw usage_error(role + " file " + path + " does not exist", "check the path");
  std::string abs = absolute_path(path);
  if (!std::filesystem::is_regular_file(abs, ec) || !ends_with(to_lower(abs), ".py"))
    throw usage_error(role + " file " + path + " is not a .py file", "kprof loads Python modules from .py files");
  try {
    py::object m = kprof_helpers().attr("load_by_path")(abs, role, file_stem(abs));
    return py::reinterpret_borrow<py::module_>(m);
  } catch (const py::error_already_set& e) {
    throw_python_error(e, abs, "loading " + role + " " + path + " failed",
                       "fix " + path + "; kprof imports it as Python would, with its folder first on sys.path");
  }
}

}  // namespace kprof
