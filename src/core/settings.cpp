#include "core/settings.hpp"

#include <atomic>
#include <cstdlib>

#include "core/text.hpp"

namespace kprof {
namespace {

std::optional<std::string> from_process(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

/// The settings in use: the environment's (built once) unless a ScopedSettings replaced them.
std::atomic<const Settings*>& current() {
  static const Settings from_env = settings_from(from_process);
  static std::atomic<const Settings*> p{&from_env};
  return p;
}

}  // namespace

Settings settings_from(const EnvLookup& lookup) {
  auto text = [&](const char* name) { return lookup(name).value_or(""); };
  auto set_nonempty = [&](const char* name) {
    auto v = lookup(name);
    return v && !v->empty();
  };
  Settings s;
  s.python = text("KPROF_PYTHON");
  s.nvcc = lookup("KPROF_NVCC");
  s.compute_sanitizer = lookup("KPROF_COMPUTE_SANITIZER");
  s.ncu = text("KPROF_NCU");
  s.ncu_report = text("KPROF_NCU_REPORT");
  if (set_nonempty("KPROF_NVML_LIBRARY")) s.nvml_library = text("KPROF_NVML_LIBRARY");
  s.cache_dir = text("KPROF_CACHE_DIR");
  s.xdg_cache_home = text("XDG_CACHE_HOME");
  s.home = text("HOME");
  s.color = text("KPROF_COLOR");
  s.no_color = set_nonempty("NO_COLOR");
  s.trace_path = text("KPROF_TRACE");
  s.py_traceback = set_nonempty("KPROF_PY_TRACEBACK") && text("KPROF_PY_TRACEBACK") != "0";
  s.tmpdir_per_gpu = text("KPROF_TMPDIR_PER_GPU") == "1";
  if (auto v = lookup("KPROF_SLURM_POLL_S")) s.slurm_poll_s = parse_number(*v);
  s.full_exit = lookup("KPROF_FULL_EXIT").has_value();
  s.fault_inject = text("KPROF_FAULT_INJECT");
  s.cupti_dir = text("KPROF_CUPTI_DIR");
  s.error_file = text("KPROF_ERROR_FILE");
  auto positive = [&](const char* name, double& field) {
    if (auto v = lookup(name))
      if (auto x = parse_number(*v); x && *x > 0) field = *x;
  };
  positive("KPROF_MAX_INPUT_BYTES", s.max_input_bytes);
  positive("KPROF_MAX_LINE_BYTES", s.max_line_bytes);
  positive("KPROF_INPUT_WAIT_S", s.input_wait_s);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (set_nonempty(var)) s.cuda_roots.push_back(text(var));
  return s;
}

Settings settings_from_environment() { return settings_from(from_process); }

const Settings& settings() { return *current().load(); }

ScopedSettings::ScopedSettings(Settings s) : previous_(current().load()), mine_(std::move(s)) {
  current().store(&mine_);
}

ScopedSettings::~ScopedSettings() { current().store(previous_); }

}  // namespace kprof
