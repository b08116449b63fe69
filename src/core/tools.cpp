#include "core/tools.hpp"

#include "core/host.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <regex>

#include "core/fs.hpp"
#include "core/outcome.hpp"
#include "core/text.hpp"
#include "core/settings.hpp"

namespace kprof {
namespace {

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

}  // namespace

std::string first_error_line(const std::string& text) {
  for (const auto& line : split(text, '\n'))
    if (line.find("==ERROR==") != std::string::npos) return trim(line);
  for (const auto& line : split(text, '\n'))
    if (starts_with(trim(line), "error:")) return trim(line);
  return "";
}

std::string find_tool(const std::string& name) {
  std::string p = find_on_path(name);
  if (!p.empty()) return p;
  std::vector<std::string> dirs;
  for (const auto& root : settings().cuda_roots) dirs.push_back(join_path(root, "bin"));
#ifdef KPROF_CUDA_BIN_DIR
  dirs.push_back(KPROF_CUDA_BIN_DIR);
#endif
  dirs.push_back("/usr/local/cuda/bin");
  if (name == "compute-sanitizer") dirs.push_back("/usr/local/cuda/compute-sanitizer");
  for (const auto& d : dirs)
    if (executable(join_path(d, name))) return join_path(d, name);
  if (name == "ncu") {
    auto found = glob_sorted("/opt/nvidia/nsight-compute/*/ncu");
    auto in_cuda = glob_sorted("/usr/local/cuda/nsight-compute-*/ncu");
    found.insert(found.end(), in_cuda.begin(), in_cuda.end());
    for (auto it = found.rbegin(); it != found.rend(); ++it)
      if (executable(*it)) return *it;
  }
  return "";
}

std::string nvcc_path() {
  // KPROF_NVCC names the nvcc to use; set to "" or a missing file, kprof behaves as without nvcc.
  if (const auto& v = settings().nvcc) return executable(*v) ? *v : std::string();
  return find_tool("nvcc");
}
std::string ncu_path() { return find_tool("ncu"); }
std::string compute_sanitizer_path() {
  if (const auto& v = settings().compute_sanitizer) return executable(*v) ? *v : std::string();
  return find_tool("compute-sanitizer");
}

std::string parse_tool_version(const std::string& output) {
  static const std::regex nvcc_re(R"(release\s+[0-9.]+,\s*V([0-9][0-9.]*))");
  static const std::regex ver_re(R"(Version\s+([0-9][0-9.]*))");
  std::smatch m;
  if (std::regex_search(output, m, nvcc_re)) return m[1];
  if (std::regex_search(output, m, ver_re)) return m[1];
  return "";
}

ToolInfo probe_tool(const std::string& name, double timeout_s) {
  ToolInfo t;
  t.name = name;
  t.path = find_tool(name);
  if (t.path.empty()) {
    t.error = name + " not found on PATH nor in /usr/local/cuda/bin ($CUDA_HOME/bin)";
    return t;
  }
  ProcessOptions opts;
  opts.timeout_s = timeout_s;
  ProcessResult r = run_process({t.path, "--version"}, opts);
  if (r.timed_out) {
    t.error = t.path + " --version timed out after " + fmt_sig(timeout_s, 3) + " s";
  } else if (r.not_found) {
    t.error = "cannot run " + t.path + ": " + trim(r.err);
  } else if (r.exit_code != 0) {
    std::string out = trim(r.combined());
    t.error = t.path + " --version failed (exit " + std::to_string(r.exit_code) + ")" +
              (out.empty() ? "" : ": " + split(out, '\n').front());
  }
  t.version = parse_tool_version(r.combined());
  return t;
}

bool is_counter_permission_error(const std::string& out) {
  return out.find("ERR_NVGPUCTRPERM") != std::string::npos ||
         out.find("does not have permission to access NVIDIA GPU Performance Counters") != std::string::npos;
}

std::string counter_permission_fix() {
  return "run as root (or with CAP_SYS_ADMIN), or let all users profile: set the nvidia module option "
         "NVreg_RestrictProfilingToAdminUsers=0 (e.g. in /etc/modprobe.d/nvidia-profiling.conf: "
         "options nvidia NVreg_RestrictProfilingToAdminUsers=0) and reload the module or reboot; "
         "see https://developer.nvidia.com/ERR_NVGPUCTRPERM";
}

bool is_driver_resource_error(const std::string& out) {
  return out.find("a driver resource was unavailable") != std::string::npos;
}

std::string driver_resource_fix() {
  return "another profiler holds this GPU's performance counters: wait for the other ncu (or Nsight Systems GPU "
         "metrics) session to end, or stop DCGM's profiling for the run (`dcgmi profile --pause`, afterwards "
         "`dcgmi profile --resume`); run one kprof per GPU at a time (kprof run --gpus does), then run again";
}

NcuCounters parse_ncu_probe(const ProcessResult& r) {
  NcuCounters c;
  c.checked = true;
  std::string all = r.combined();
  if (r.not_found) {
    c.error = "cannot start ncu: " + trim(r.err);
    c.fix = "check the ncu path (`which ncu`) and that it is executable";
    return c;
  }
  if (r.timed_out) {
    c.error = "the ncu probe hit its time limit and was stopped after " + fmt_sig(r.wall_s, 2) + " s";
    c.fix = "run the probe by hand to see where it stops; raise the limit with --timeout";
    return c;
  }
  for (const auto& line : split(all, '\n')) {
    auto pos = line.find(kNcuProbeMetric);
    if (pos == std::string::npos) continue;
    std::string rest = trim(line.substr(pos));
    std::string last;
    if (rest.find("\",\"") != std::string::npos) {
      last = rest.substr(rest.rfind(",\"") + 2);
      last.erase(std::remove(last.begin(), last.end(), '"'), last.end());
    } else {
      auto sp = rest.find_last_of(" \t");
      last = sp == std::string::npos ? "" : rest.substr(sp + 1);
    }
    if (auto v = parse_number(last)) {
      c.readable = true;
      c.cycles = *v;
      return c;
    }
  }
  if (is_counter_permission_error(all)) {
    c.permission_denied = true;
    c.error = "ERR_NVGPUCTRPERM: this user may not access the NVIDIA GPU performance counters";
    c.fix = counter_permission_fix();
    return c;
  }
  if (is_driver_resource_error(all)) {
    c.error = "the GPU's performance counters are busy: ncu reports \"a driver resource was unavailable\"";
    c.fix = driver_resource_fix();
    return c;
  }
  if (all.find("No kernels were profiled") != std::string::npos) {
    c.no_kernels = true;
    std::string why = first_error_line(all);
    c.error = "ncu profiled no kernel of the probe" + (why.empty() ? "" : " (" + why + ")");
    c.fix =
        "run `kprof __probe` alone: it must launch one kernel and exit 0 (is the GPU visible? "
        "CUDA_VISIBLE_DEVICES)";
    return c;
  }
  std::string why = first_error_line(all);
  c.error = std::string("ncu returned no value for ") + kNcuProbeMetric + " (exit " + std::to_string(r.exit_code) +
            ")" + (why.empty() ? "" : ": " + why);
  c.fix = "run the command shown to see ncu's full output";
  return c;
}

void apply_probe_outcome(NcuCounters& c, const ChildOutcome& target) {
  if (c.readable || !target.found || target.exit_code == 0) return;
  c.error = "kprof's probe kernel failed under ncu (exit " + std::to_string(target.exit_code) + ")" +
            (target.error.empty() ? std::string() : ": " + target.error);
  c.fix =
      !target.hint.empty() ? target.hint : "run `kprof env` again; its GPU line says whether the GPU can run a kernel";
}

NcuCounters probe_ncu_counters(const std::string& ncu, const std::vector<std::string>& target, double timeout_s) {
  std::vector<std::string> argv = {ncu,  "--clock-control", "none", "--metrics", kNcuProbeMetric, "--target-processes",
                                   "all"};
  argv.insert(argv.end(), target.begin(), target.end());
  ProcessOptions opts;
  opts.timeout_s = timeout_s;
  ScratchFile outcome("kprof-probe-outcome", ".json", "");
  if (!outcome.path().empty()) {
    std::remove(outcome.path().c_str());  // written by the target, or absent
    opts.env[kOutcomeFileVar] = outcome.path();
  }
  NcuCounters c = parse_ncu_probe(run_process(argv, opts));
  c.command = shell_join(argv);
  if (!outcome.path().empty()) apply_probe_outcome(c, read_outcome(outcome.path()));
  return c;
}

std::vector<std::string> self_command() {
  Host h = current_host();
  if (!h.self_command.empty()) return h.self_command;
  std::string exe = self_exe_path();
  if (exe.empty()) return {};
  return {exe};
}

std::string self_exe_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace kprof
