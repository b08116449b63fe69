// kprof check: correctness of one kernel against ref.py (the seed's "Correctness Check").
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <vector>

#include "api/command_requests.hpp"
#include "cli/commands.hpp"
#include "cli/request_file.hpp"
#include "cli/table_options.hpp"
#include "cli/kernel_options.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host_json.hpp"
#include "core/term.hpp"
#include "core/tools.hpp"
#include "kernel/load.hpp"
#include "stages/verify/reference_loader.hpp"
#include "stages/verify/reference.hpp"
#include "flows/report_files.hpp"
#include "flows/sanitize.hpp"
#include "report/correctness_report.hpp"
#include "stages/verify/check.hpp"

namespace kprof {
namespace {

/// `--sanitize`'s request, with compute-sanitizer found (exit 2 before any GPU work when it is not).
SanitizeRequest sanitize_request(const KernelCliOptions& o, const KernelSpec& spec,
                                 const std::vector<SanitizerTool>& tools) {
  SanitizeRequest req;
  req.tools = tools;
  req.sanitizer = require_compute_sanitizer();
  req.kprof = self_command();
  if (req.kprof.empty())
    throw usage_error("--sanitize: cannot tell where this kprof executable is (/proc/self/exe is unreadable)",
                      "run kprof on Linux with /proc mounted, or drop --sanitize");
  req.spec = spec;
  req.ref = o.ref;
  if (o.atol >= 0) req.atol = o.atol;
  if (o.rtol >= 0) req.rtol = o.rtol;
  req.output_dir = o.output_dir;
  req.cutlass_is_user = spec_implementation(spec) == Implementation::Cutlass;
  return req;
}

int run_check_command(KernelCliOptions& o, const std::vector<SanitizerTool>& sanitize) {
  KernelSpec spec = spec_for(o, 0);
  validate_spec(spec);  // input errors are exit 2 on any machine, before any GPU work
  check_reference_source(o.ref);
  std::optional<SanitizeRequest> san;
  if (!sanitize.empty()) san = sanitize_request(o, spec, sanitize);
  select_gpu_for(spec);  // no GPU: a --build runs first, its own errors come first
  // ref.py (and PyTorch) load on another thread while kprof prepares buffers and runs the kernel.
  BackgroundReference reference(o.ref, spec.gpu);
  auto inst = load_kernel(spec, /*extra_copies=*/3.0);
  CheckOptions co;
  co.seed = spec.seed;
  co.trials = o.trials;
  co.timeout_s = spec.timeout_s;
  if (o.atol >= 0) co.atol = o.atol;
  if (o.rtol >= 0) co.rtol = o.rtol;
  print_progress(
      fmt::format("checking {} ({}) against {}", spec.kernel, implementation_name(inst->implementation()), o.ref));
  CheckResult r = run_check(
      *inst, [&]() -> ReferenceRunner& { return reference.get(); }, co);
  auto header = kernel_header_rows(spec, *inst, o.ref);
  header.push_back({"Trials", std::to_string(o.trials)});
  if (san) {
    write_correctness_reports(o.output_dir, r, header);  // the check's own result stays if a tool run is killed
    add_sanitizer_findings(r, *san);
  }
  write_correctness_reports(o.output_dir, r, header);
  if (!o.no_html) write_check_page(o.output_dir, r, header);
  std::fputs(correctness_console(r).c_str(), stdout);
  std::printf("%s  (report: %s)\n", styled(r.pass ? "PASS" : "FAIL", r.pass ? Style::Ok : Style::Fail).c_str(),
              join_path(o.output_dir, "correctness.md").c_str());
  return exit_now_if_stuck(r.pass ? 0 : 1);  // a hung kernel: leave before any destructor waits for it
}

/// The check request in `path` (api/command_requests.hpp CheckRequest as JSON), validated. Error
/// (exit 2) naming the file when it cannot be read or is not a request.
api::CheckRequest read_check_request(const std::string& path) {
  api::CheckRequest r = api::check_request_from_json(read_request_file(path, "check"));
  api::validate(r);
  if (!r.sanitize.empty())
    throw usage_error("the check request " + path + " asks for --sanitize",
                      "the sanitizer's child runs no tool itself");
  return r;
}

}  // namespace

void register_check_child(CLI::App& app, CommandAction& action) {
  auto request = std::make_shared<std::string>();
  auto opts = std::make_shared<KernelCliOptions>();
  auto* sub = app.add_subcommand("__check", "Internal: the check compute-sanitizer runs (kprof check --sanitize)");
  sub->group("");  // hidden from --help
  sub->add_option("--request", *request, "The typed request (JSON, api/command_requests.hpp CheckRequest)")->required();
  sub->callback([request, opts, &action] {
    api::CheckRequest r = read_check_request(*request);
    adopt_host(r.host);  // the parent's host, while parsing: before CUPTI loads (cli/entry.cpp)
    *opts = r.kernel;
    action = [opts] { return run_check_command(*opts, {}); };
  });
}

void register_check(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<KernelCliOptions>();
  auto* sub = app.add_subcommand("check", "Check a kernel's outputs against ref.py (correctness.md)");
  sub->footer(
      "Check a kernel's outputs against a Python reference (ref.py defining reference(**kwargs)).\n"
      "The first call into fresh seeded buffers is compared element-wise (|k - r| <= atol + rtol*|r|);\n"
      "also finds never-written elements, writes past a buffer, modified const inputs and kernel faults.\n"
      "Writes OUTPUT_DIR/correctness.md and correctness.json. Exit 0 pass, 1 fail, 2 usage/input error.\n"
      "--sanitize memcheck,racecheck,initcheck,synccheck then runs the kernel once more per tool under NVIDIA\n"
      "compute-sanitizer (a child `kprof __check`, this check with one trial; reports in OUTPUT_DIR/sanitizer/);\n"
      "an error in the kernel fails the check (those in PyTorch's, cuBLAS's or kprof's own kernels are listed, not "
      "failing).");
  add_kernel_options(sub, *opts, /*several=*/false, /*with_ref=*/true, /*with_output=*/true);
  auto sanitize = std::make_shared<std::string>();
  add_table_option(sub, "check", "--sanitize", *sanitize)->type_name("TOOLS");
  sub->callback([sub, opts, sanitize, &action] {
    std::vector<SanitizerTool> tools;
    if (sub->get_option("--sanitize")->count() > 0) tools = parse_sanitizer_tools(*sanitize);  // exit 2 at once
    finish_kernel_options(sub, *opts);
    action = [opts, tools] { return run_check_command(*opts, tools); };
  });
}

}  // namespace kprof
