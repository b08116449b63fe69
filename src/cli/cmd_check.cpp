// kprof check: correctness of one kernel against ref.py (the seed's "Correctness Check").
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/kernel_options.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "kernel/load.hpp"
#include "stages/verify/reference_loader.hpp"
#include "stages/verify/reference.hpp"
#include "report/correctness_report.hpp"
#include "stages/verify/check.hpp"

namespace kprof {
namespace {

int run_check_command(KernelCliOptions& o) {
  KernelSpec spec = spec_for(o, 0);
  validate_spec(spec);  // input errors are exit 2 on any machine, before any GPU work
  check_reference_source(o.ref);
  select_gpu(spec.gpu);
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
  write_correctness_reports(o.output_dir, r, header);
  std::fputs(correctness_console(r).c_str(), stdout);
  std::printf("%s  (report: %s)\n", styled(r.pass ? "PASS" : "FAIL", r.pass ? Style::Ok : Style::Fail).c_str(),
              join_path(o.output_dir, "correctness.md").c_str());
  return exit_now_if_stuck(r.pass ? 0 : 1);  // a hung kernel: leave before any destructor waits for it
}

}  // namespace

void register_check(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<KernelCliOptions>();
  auto* sub = app.add_subcommand("check", "Check a kernel's outputs against ref.py (correctness.md)");
  sub->footer(
      "Check a kernel's outputs against a Python reference (ref.py defining reference(**kwargs)).\n"
      "The first call into fresh seeded buffers is compared element-wise (|k - r| <= atol + rtol*|r|);\n"
      "also finds never-written elements, writes past a buffer, modified const inputs and kernel faults.\n"
      "Writes OUTPUT_DIR/correctness.md and correctness.json. Exit 0 pass, 1 fail, 2 usage/input error.");
  add_kernel_options(sub, *opts, /*several=*/false, /*with_ref=*/true, /*with_output=*/true);
  sub->callback([sub, opts, &action] {
    finish_kernel_options(sub, *opts);
    action = [opts] { return run_check_command(*opts); };
  });
}

}  // namespace kprof
