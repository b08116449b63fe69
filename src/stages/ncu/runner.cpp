#include "stages/ncu/runner.hpp"

#include <glob.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <regex>
#include <utility>

#include "core/trace.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"
#include "stages/ncu/source_section.hpp"
#include "core/settings.hpp"

namespace kprof {

std::string find_ncu() {
  if (const std::string& ncu = settings().ncu; !ncu.empty()) return ncu;
  std::string p = find_on_path("ncu");
  if (!p.empty()) return p;
#ifdef KPROF_CUDA_BIN_DIR
  p = join_path(KPROF_CUDA_BIN_DIR, "ncu");
  if (path_exists(p)) return p;
#endif
  for (const char* pattern : {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"}) {
    glob_t g{};
    if (::glob(pattern, 0, nullptr, &g) == 0 && g.gl_pathc > 0) {
      std::string found = g.gl_pathv[g.gl_pathc - 1];
      ::globfree(&g);
      return found;
    }
    ::globfree(&g);
  }
  return "";
}

const std::vector<std::string>& ncu_main_sections() {
  static const std::vector<std::string> s = {"SpeedOfLight",
                                             "LaunchStats",
                                             "Occupancy",
                                             "SchedulerStats",
                                             "WarpStateStats",
                                             "MemoryWorkloadAnalysis",
                                             "ComputeWorkloadAnalysis",
                                             "SourceCounters"};
  return s;
}

std::vector<std::string> ncu_command(const std::string& ncu, const NcuRunOptions& o) {
  std::vector<std::string> a = {ncu,   "--clock-control", "none",   "--profile-from-start",
                                "off", "--cache-control", "all",    "--target-processes",
                                "all", "--replay-mode",   "kernel", "-f",
                                "-o",  o.report_base};
  if (o.metric_set == "full") {
    a.insert(a.end(), {"--set", "full"});
  } else if (o.metric_set == "sections") {
    for (const auto& s : ncu_main_sections()) a.insert(a.end(), {"--section", s});
  }
  if (o.source) {
    if (o.metric_set == "kprof") {
      if (o.source_section_folder.empty())
        a.insert(a.end(), {"--section", "SourceCounters"});
      else
        a.insert(a.end(), {"--section-folder", o.source_section_folder, "--section", kKprofSourceSectionId});
    }
    a.insert(a.end(), {"--import-source", "yes"});
  }
  if (o.nvtx) a.push_back("--nvtx");
  if (!o.metrics.empty()) {
    std::string list;
    for (const auto& m : o.metrics) list += (list.empty() ? "" : ",") + m;
    a.insert(a.end(), {"--metrics", list});
  }
  a.insert(a.end(), o.target.begin(), o.target.end());
  return a;
}

namespace {
/// The replay passes in ncu's progress after a "==PROF== Profiling "NAME"" header (`after`: the
/// text from the closing quote up to the next header): " - N passes" on the header's own line,
/// else on a later line, since ncu draws "0%....50%....100%" while the passes run and a line printed
/// meanwhile into the same stream (an ncu ==WARNING== during a long replay, the profiled process's
/// ==KPROF== mark) splits the progress from its count. 0 when no count follows.
int replay_passes_after(const std::string& after) {
  static const std::regex own_line(R"re(^[^\n]*?(\d+) pass)re");
  static const std::regex later_line(R"re(- (\d+) pass)re");
  std::smatch m;
  if (std::regex_search(after, m, own_line)) return std::atoi(m[1].str().c_str());
  if (std::regex_search(after, m, later_line)) return std::atoi(m[1].str().c_str());
  return 0;
}
}  // namespace

void interpret_ncu_output(const std::string& out, int exit_code, NcuRunResult& r) {
  static const std::string header = "==PROF== Profiling \"";
  for (size_t at = out.find(header); at != std::string::npos;) {
    const size_t name_begin = at + header.size();
    const size_t name_end = out.find('"', name_begin);
    if (name_end == std::string::npos) break;
    const size_t next = out.find(header, name_end);
    r.profiled.push_back(out.substr(name_begin, name_end - name_begin));
    r.passes.push_back(replay_passes_after(
        out.substr(name_end + 1, next == std::string::npos ? std::string::npos : next - name_end - 1)));
    r.replay_passes = std::max(r.replay_passes, r.passes.back());
    at = next;
  }
  if (out.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    r.failure = NcuFailure::NoPermission;
    r.message = "ncu cannot read the GPU performance counters (ERR_NVGPUCTRPERM): this user lacks the permission";
    r.hint =
        "run kprof as root (or with CAP_SYS_ADMIN), or let all users profile: set the nvidia module option "
        "NVreg_RestrictProfilingToAdminUsers=0 and reload the driver "
        "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
    return;
  }
  if (is_driver_resource_error(out)) {
    r.failure = NcuFailure::CountersBusy;
    r.message =
        "ncu could not profile: \"Profiling failed because a driver resource was unavailable\" (another "
        "profiler, a second ncu or DCGM, holds this GPU's performance counters)";
    r.hint = driver_resource_fix();
    return;
  }
  if (out.find("No kernels were profiled") != std::string::npos || (r.profiled.empty() && exit_code == 0)) {
    r.failure = NcuFailure::NoKernels;
    r.message = "ncu profiled no kernel: the call launched none inside the profiled range";
    r.hint =
        "the kernel must launch from the call itself (solve / run_kernel) on this GPU; a kernel launched "
        "from another process or before the call is not in the range";
    return;
  }
  static const std::regex rc_re(R"(The application returned an error code \((\d+)\))");
  std::smatch m;
  if (std::regex_search(out, m, rc_re) || (exit_code != 0 && r.profiled.empty())) {
    r.failure = NcuFailure::RunnerFailed;
    r.message =
        "the profiled kprof process failed" + (m.size() > 1 ? " (exit code " + m[1].str() + ")" : std::string());
    r.hint =
        "its own error message is in ncu_details.md (ncu log); the same kernel options must pass "
        "`kprof check` first";
    return;
  }
  if (exit_code != 0) {
    r.failure = NcuFailure::RunnerFailed;
    r.message = "ncu exited with code " + std::to_string(exit_code);
    r.hint = "see the ncu log in ncu_details.md";
  }
}

void explain_runner_failure(NcuRunResult& r) {
  const ChildOutcome& t = r.target;
  if (r.failure != NcuFailure::RunnerFailed || !t.found || t.exit_code == 0 || t.error.empty()) return;
  r.message = "the profiled kprof process failed (exit code " + std::to_string(t.exit_code) + "): " + t.error;
  if (!t.hint.empty()) r.hint = t.hint;
}

namespace {
/// Adds `chunk` to `partial` and hands each complete line to `on_line` (when set) and, traced
/// (KPROF_TRACE), ncu's own lines ("==PROF==", "==ERROR==", "==WARNING==") and the runner's ("==KPROF==").
void split_ncu_lines(std::string& partial, const std::string& chunk,
                     const std::function<void(const std::string&)>& on_line) {
  partial += chunk;
  size_t nl;
  while ((nl = partial.find('\n')) != std::string::npos) {
    std::string line = partial.substr(0, nl);
    partial.erase(0, nl + 1);
    if (line.rfind("==", 0) == 0) trace_event("ncu| " + line);
    if (on_line) on_line(line);
  }
}
}  // namespace

NcuRunResult run_ncu(const NcuRunOptions& o) {
  if (o.target.empty()) throw usage_error("run_ncu: no program to profile");
  NcuRunResult r;
  std::string ncu = o.ncu.empty() ? find_ncu() : o.ncu;
  if (ncu.empty()) {
    r.failure = NcuFailure::NcuMissing;
    r.message = "Nsight Compute (ncu) not found";
    r.hint = "install Nsight Compute (part of the CUDA toolkit) and put ncu on PATH, or set KPROF_NCU";
    return r;
  }
  r.command = ncu_command(ncu, o);
  ProcessOptions po;
  po.timeout_s = o.stop_when ? 0 : o.timeout_s;
  std::atomic<bool> stop{false};
  po.cancel = &stop;
  double last_output = 0, now = 0;
  bool at_line_start = true;
  std::string held;  // output held back while o.hold_output is false
  auto echo = [&](const std::string& chunk) {
    std::string text;
    for (char c : chunk) {
      if (at_line_start) text += "  | ";
      text += c;
      at_line_start = c == '\n';
    }
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
    last_output = now;
  };
  auto holding = [&] { return o.hold_output && !o.hold_output->load(); };
  std::string partial_line[2];  // stdout's, stderr's: for on_line and KPROF_TRACE
  if (o.show_progress || o.on_line || trace_enabled()) {
    po.on_chunk = [&](const std::string& chunk, bool is_err) {
      if (o.on_line || trace_enabled()) split_ncu_lines(partial_line[is_err ? 1 : 0], chunk, o.on_line);
      if (!o.show_progress) return;
      if (holding()) {
        held += chunk;
        return;
      }
      if (!held.empty()) echo(std::exchange(held, ""));
      echo(chunk);
    };
  }
  po.on_tick = [&](double elapsed) {
    now = elapsed;
    if (o.stop_when && o.stop_when(elapsed)) stop = true;
    if (!o.show_progress || holding()) return;
    if (!held.empty()) echo(std::exchange(held, ""));
    if (elapsed - last_output >= 15.0) {
      if (!at_line_start) {
        std::fputc('\n', stderr);
        at_line_start = true;
      }
      // With stop_when the limit counts from a release, not from ncu's start: no limit is named.
      print_progress(
          "ncu still running (" + std::to_string(static_cast<int>(elapsed)) + " s elapsed" +
          (o.stop_when ? std::string(")") : ", limit " + std::to_string(static_cast<int>(o.timeout_s)) + " s)"));
      last_output = elapsed;
    }
  };
  // One outcome out (core/outcome.hpp): the profiled kprof writes its outcome document here.
  ScratchFile target_outcome("kprof-ncu-target-outcome", ".json", "");
  if (!target_outcome.path().empty()) {
    std::remove(target_outcome.path().c_str());  // written by the target, or absent
    po.env[kOutcomeFileVar] = target_outcome.path();
  }
  trace_event("ncu: launch");
  auto pr = run_process(r.command, po);
  if (!target_outcome.path().empty()) r.target = read_outcome(target_outcome.path());
  trace_event("ncu: exited");
  if (o.show_progress && !holding() && !held.empty()) echo(std::exchange(held, ""));  // a cancelled standby stays quiet
  if (o.show_progress && !at_line_start) std::fputc('\n', stderr);
  r.wall_s = pr.wall_s;
  r.log = pr.combined();
  if (pr.timed_out || pr.cancelled) {
    r.failure = NcuFailure::Timeout;
    r.message = "ncu did not finish within " + std::to_string(static_cast<int>(o.timeout_s)) + " s and was stopped";
    r.hint = "raise --ncu-timeout, use a smaller problem, or --metrics kprof (fewest replay passes)";
    return r;
  }
  if (pr.not_found) {
    r.failure = NcuFailure::NcuMissing;
    r.message = "could not start ncu (" + ncu + "): " + pr.err;
    r.hint = "check the ncu installation or set KPROF_NCU";
    return r;
  }
  interpret_ncu_output(r.log, pr.exit_code, r);
  explain_runner_failure(r);
  const std::string report = o.report_base + ".ncu-rep";
  if (!r.ok() && !(o.keep_partial && r.failure == NcuFailure::RunnerFailed && path_exists(report))) return r;
  r.report_path = report;
  if (o.read_report && o.read_report(r.report_path)) {
    r.metrics_from_report = true;
    return r;
  }
  ProcessOptions io;
  io.timeout_s = 300;
  ProcessResult ex =
      run_process({ncu, "--import", r.report_path, "--csv", "--page", "raw", "--print-units", "base"}, io);
  r.export_wall_s = ex.wall_s;
  if (!ex.ok() || trim(ex.out).empty()) {
    if (!r.ok()) return r;  // a partial report that does not export: the runner's failure stands
    r.failure = NcuFailure::ImportFailed;
    r.message = "ncu could not export " + r.report_path + " to CSV: " + trim(ex.err.empty() ? ex.out : ex.err);
    r.hint = "open the report in Nsight Compute, or run `ncu --import " + r.report_path + " --csv --page raw`";
    return r;
  }
  r.csv = ex.out;
  return r;
}

}  // namespace kprof
