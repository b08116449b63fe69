#include "stages/env/env_check.hpp"

#include "core/implementation.hpp"
#include "device/cupti_loader.hpp"
#include "device/cupti_version.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <future>

#include "core/fs.hpp"
#include "core/probe_request.hpp"
#include "core/trace.hpp"
#include "core/term.hpp"
#include "core/text.hpp"

extern char** environ;

namespace kprof {

std::vector<std::pair<std::string, std::string>> cuda_env_vars() {
  static const char* extra[] = {"CUTLASS_PATH", "CUTLASS_ROOT", "CUTLASS_HOME", "KPROF_PYTHON", "KPROF_NVML_LIBRARY"};
  std::vector<std::pair<std::string, std::string>> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string k = kv.substr(0, eq);
    bool wanted = starts_with(k, "CUDA_");
    for (const char* x : extra) wanted = wanted || k == x;
    if (wanted) vars.emplace_back(k, kv.substr(eq + 1));
  }
  std::sort(vars.begin(), vars.end());
  return vars;
}

EnvFacts collect_env(const EnvOptions& opts) {
  auto progress = [&](const std::string& m) {
    if (opts.progress) print_progress(m);
  };
  EnvFacts f;
  f.date = now_string();
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) f.host = host;
  f.kprof_version = KPROF_VERSION;
  f.gpu_index = opts.gpu;
  f.env_vars = cuda_env_vars();

  progress("env: CUDA runtime, GPU " + std::to_string(opts.gpu) + " and NVML");
  f.gpu = gpu_info(opts.gpu);
  f.cupti_version = cupti_api_version();
  f.cupti_dir = cupti_library_dir();
  f.cupti_source = cupti_load().source;
  if (!cupti_load().ok()) f.cupti_tried = cupti_load().tried;

  // The Python probe (a subprocess importing torch, triton, cutlass.cute: the slowest item, ~5 s)
  // runs on its own thread while the tools and the ncu counter probe (~2 s) run on this one.
  std::string packages = "torch";
  for (const auto& row : language_rows())
    if (!row.probe_module.empty()) packages += ", " + row.probe_module;
  progress("env: Python packages (" + packages + ", nsight) in " + python_executable() + ", up to " +
           fmt_sig(opts.timeout_s, 3) + " s");
  std::future<PythonInfo> python = std::async(std::launch::async, [&opts] { return probe_python(opts.timeout_s); });

  progress("env: ncu, nvcc, compute-sanitizer (--version)");
  f.ncu = probe_tool("ncu", opts.timeout_s);
  // The counter probe starts first when it is the run's ncu session's first launch: the other
  // tools are probed while ncu starts.
  std::function<NcuCounters()> in_session;
  if (f.ncu.ok() && f.gpu.available && opts.counter_probe_in_session) {
    in_session = opts.counter_probe_in_session(f);
    if (in_session)
      progress("env: can ncu read performance counters? (the probe kernel, first in the run's ncu session)");
  }
  f.nvcc = probe_tool("nvcc", opts.timeout_s);
  f.sanitizer = probe_tool("compute-sanitizer", opts.timeout_s);

  std::vector<std::string> exe = opts.self_exe.empty() ? self_command() : opts.self_exe;
  if (!f.ncu.ok()) {
    f.counters_skipped = "not checked: ncu is not usable";
  } else if (!f.gpu.available) {
    f.counters_skipped = "not checked: " + f.gpu.error;
  } else if (in_session) {
    f.counters = in_session();
  } else if (exe.empty()) {
    f.counters_skipped = "not checked: cannot tell kprof's own path (/proc/self/exe)";
  } else {
    progress("env: can ncu read performance counters? (one-kernel probe under ncu)");
    ProbeRequest request;  // one request in (core/probe_request.hpp): the GPU and this host
    request.gpu = opts.gpu;
    request.host = current_host();
    ScratchFile request_file("kprof-probe-request", ".json", to_json(request).dump());
    if (request_file.path().empty()) {
      f.counters_skipped = "not checked: cannot write the probe's request under " + temp_root();
    } else {
      exe.insert(exe.end(), {"__probe", "--request", request_file.path()});
      f.counters = probe_ncu_counters(f.ncu.path, exe, opts.timeout_s);
    }
  }
  trace_event(f.counters.checked ? "env: counters probed" : "env: counters not probed: " + f.counters_skipped);
  if (opts.on_counters_probed) opts.on_counters_probed(f);
  f.python = python.get();
  trace_event("env: python probed");

  CutlassSearch search = CutlassSearch::from_environment();
  search.pip_source = f.python.cutlass_pip_source;
  search.pip_version = f.python.cutlass_pip_version;
  f.cutlass = locate_cutlass(search);
  return f;
}

}  // namespace kprof
