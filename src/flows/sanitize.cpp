#include "flows/sanitize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host.hpp"
#include "core/outcome.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"

namespace kprof {
namespace {

std::string scratch_dir(const SanitizeRequest& req) { return join_path(req.output_dir, "sanitizer"); }

SanitizerToolResult run_one(const SanitizeRequest& req, SanitizerTool tool) {
  const std::string name = sanitizer_tool_name(tool);
  const std::string request_path = join_path(scratch_dir(req), name + ".request.json");
  const std::string outcome_path = join_path(scratch_dir(req), name + ".outcome.json");
  write_file_atomic(request_path,
                    api::to_json(sanitizer_child_request(req, join_path(scratch_dir(req), name))).dump(1) + "\n");
  std::remove(outcome_path.c_str());  // written by this tool's child, or absent
  std::vector<std::string> argv = sanitizer_command(req, tool, request_path);
  ProcessOptions po;
  po.timeout_s = sanitizer_run_timeout_s(req.spec.timeout_s);
  po.env["KPROF_COLOR"] = "never";
  po.env["KPROF_FULL_EXIT"] = "1";  // the normal teardown: the sanitizer's injection sees the process end
  po.env[kOutcomeFileVar] = outcome_path;
  print_progress(fmt::format("compute-sanitizer {}: the kernel once more under it (at most {} s)", name,
                             fmt_sig(po.timeout_s, 3)));
  ProcessResult pr = run_process(argv, po);
  std::string start_error = pr.not_found ? "cannot start " + req.sanitizer + ": " + trim(pr.err) : "";
  SanitizerToolResult r =
      judge_sanitizer_run(tool, pr.combined(), pr.exit_code, pr.timed_out, start_error, req.cutlass_is_user);
  if (pr.timed_out)
    r.error = fmt::format("timed out after {} s: compute-sanitizer was stopped (a slow kernel: raise --timeout)",
                          fmt_sig(po.timeout_s, 3));
  else if (start_error.empty())
    apply_child_outcome(r, read_outcome(outcome_path));
  r.command = shell_join(argv);
  r.wall_s = pr.wall_s;
  r.log_path = join_path(scratch_dir(req), name + ".log");
  write_file_atomic(r.log_path, "$ " + r.command + "\n" + pr.combined());
  return r;
}

}  // namespace

std::string require_compute_sanitizer() {
  std::string p = compute_sanitizer_path();
  if (p.empty())
    throw usage_error(
        "--sanitize needs NVIDIA compute-sanitizer, which is not installed: not on PATH nor in "
        "/usr/local/cuda/bin, /usr/local/cuda/compute-sanitizer or $CUDA_HOME/bin",
        "install the CUDA toolkit's compute-sanitizer (the cuda-sanitizer-<version> package, part of the full "
        "toolkit), put it on PATH or set KPROF_COMPUTE_SANITIZER=/path/to/compute-sanitizer; or drop --sanitize");
  return p;
}

double sanitized_call_timeout_s(double kernel_timeout_s) { return 10.0 * kernel_timeout_s; }

double sanitizer_run_timeout_s(double kernel_timeout_s) { return std::max(600.0, 20.0 * kernel_timeout_s); }

api::CheckRequest sanitizer_child_request(const SanitizeRequest& req, const std::string& child_output_dir) {
  api::CheckRequest c;
  c.kernel.kernels = {req.spec.kernel};
  c.kernel.spec = req.spec;
  c.kernel.spec.timeout_s = sanitized_call_timeout_s(req.spec.timeout_s);
  c.kernel.spec.build = false;  // the check built it already
  if (!req.spec.so_path.empty()) c.kernel.so_paths = {req.spec.so_path};
  c.kernel.ref = req.ref;
  c.kernel.atol = req.atol.value_or(-1);
  c.kernel.rtol = req.rtol.value_or(-1);
  c.kernel.trials = 1;
  c.kernel.output_dir = child_output_dir;
  c.host = current_host();
  return c;
}

std::vector<std::string> sanitizer_command(const SanitizeRequest& req, SanitizerTool tool,
                                           const std::string& request_path) {
  const std::string name = sanitizer_tool_name(tool);
  std::vector<std::string> argv = {req.sanitizer, "--tool", name, "--print-limit", "20"};
  if (tool == SanitizerTool::Racecheck) argv.insert(argv.end(), {"--racecheck-report", "all"});
  argv.insert(argv.end(), {"--target-processes", "all"});
  argv.insert(argv.end(), req.kprof.begin(), req.kprof.end());
  argv.insert(argv.end(), {"__check", "--request", request_path});
  return argv;
}

void apply_child_outcome(SanitizerToolResult& r, const ChildOutcome& child) {
  if (!child.found || child.exit_code != static_cast<int>(ExitCode::Usage)) return;
  r.error = "the kernel did not run under it: its check stopped with a usage or input error" +
            (child.error.empty() ? std::string() : ": " + child.error);
  r.pass = false;
}

std::vector<SanitizerToolResult> run_sanitizers(const SanitizeRequest& req) {
  make_dirs(scratch_dir(req));
  std::vector<SanitizerToolResult> out;
  for (auto tool : req.tools) out.push_back(run_one(req, tool));
  return out;
}

void add_sanitizer_findings(CheckResult& r, const SanitizeRequest& req) {
  if (r.fault && r.fault->kind == FaultKind::Timeout) {
    r.sanitizer_skipped = "the kernel did not finish in the check (" + r.fault->message +
                          "): under compute-sanitizer it would hang the same way";
    r.pass = false;
    return;
  }
  r.sanitizer = run_sanitizers(req);
  for (const auto& t : r.sanitizer) r.pass = r.pass && t.pass;
}

}  // namespace kprof
