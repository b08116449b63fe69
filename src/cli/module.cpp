// kprof._core: the extension module of the Python package (python/kprof). It exposes the command
// line itself (cli/entry.hpp), so the console script `kprof`, `python -m kprof` and the Python
// API's children run exactly the executable's code, parser and exit codes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/options.hpp"
#include "cli/entry.hpp"
#include "core/host.hpp"
#include "device/cupti_loader.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "kprof's C++ core (the command line); use the kprof package's functions instead";
  m.attr("__version__") = KPROF_VERSION;
  m.def(
      "set_host",
      [](const std::string& executable, std::vector<std::string> self_command, bool owns_stdout,
         std::vector<std::string> cupti_wheel_dirs) {
        kprof::Host host;  // the host as one value (core/host.hpp)
        host.python = executable;
        host.owns_stdout = owns_stdout;
        host.self_command = std::move(self_command);
        host.cupti_dirs = std::move(cupti_wheel_dirs);
        kprof::set_host(std::move(host));
      },
      py::arg("executable"), py::arg("self_command"), py::arg("owns_stdout"), py::arg("cupti_wheel_dirs"),
      "Tells the core which Python hosts it (sys.executable), the words that start kprof again in a child "
      "([sys.executable, '-m', 'kprof']), whether stdout is kprof's, and the nvidia-cuda-cupti folders of "
      "sys.path (newest first). Call once, before main().");
  m.def(
      "main",
      [](const std::vector<std::string>& argv) {
        py::gil_scoped_release nogil;  // kprof's threads take the GIL when they run Python
        int code = kprof::cli_main(argv);
        // The hidden commands (ncu's and compute-sanitizer's targets) end as the executable's main()
        // does: through exit(), whose handlers the injected tools write their results from, and never
        // through Python's finalization, which PyTorch does not survive.
        if (kprof::ends_through_exit(argv)) {
          std::fflush(nullptr);
          std::exit(code);
        }
        return code;
      },
      py::arg("argv"),
      "Runs the kprof command line argv (argv[0] is the program name) and returns its exit code. A finished "
      "public command ends the process (_Exit): call it only in a process that is kprof's own.");
  m.def(
      "check_args",
      [](const std::vector<std::string>& argv) {
        kprof::CliOutcome r = kprof::cli_check(argv);
        py::dict out;
        out["code"] = r.code;
        out["message"] = r.message;
        out["hint"] = r.hint;
        out["command"] = r.command;
        out["output"] = r.output;
        return out;
      },
      py::arg("argv"),
      "Parses argv as main() would and runs nothing: {code, message, hint, command, output}: code 0, or 2 "
      "with kprof's message and hint for a usage error; output is where the command writes its reports.");
  m.def(
      "option_table", [] { return kprof::api::option_table_json().dump(); },
      "The option table every face is built from (api/options.hpp) as a JSON string: {kprof_version, commands: "
      "{name: [row, ...]}}.");
  m.def(
      "cupti_search_dirs",
      [] {
        std::vector<py::tuple> out;
        for (const auto& [dir, source] : kprof::cupti_search_dirs()) out.push_back(py::make_tuple(dir, source));
        return out;
      },
      "The folders searched for libcupti.so.13, in order, as (folder, source) pairs.");
}
