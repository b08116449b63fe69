// kprof profile: execution time (CUDA events + CUPTI), Nsight Compute metrics and the bottleneck
// of one kernel (the seed's "NCU Profiling" and "Bottleneck Classification").
#include <fmt/format.h>

#include <cstdio>

#include "stages/analysis/analyze.hpp"
#include "cli/commands.hpp"
#include "cli/profile_settings.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/trace.hpp"
#include "flows/ncu_standby.hpp"
#include "kernel/load.hpp"
#include "report/hot_lines_report.hpp"
#include "report/ncu_report.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

namespace {

struct ProfileCmd {
  KernelCliOptions k;
  ProfileCliOptions p;
};

int run_profile_command(ProfileCmd& c) {
  KernelSpec spec = spec_for(c.k, 0);
  validate_spec(spec);  // input errors are exit 2 on any machine, before any GPU work
  ProfileSettings settings = make_profile_settings(c.k, c.p);
  select_gpu_for(spec);  // no GPU: a --build runs first, its own errors come first
  trace_event("profile: GPU selected");
  // ncu's start-up and its process's CUDA context (and Python imports) overlap the kernel's load,
  // prepare() and timing here.
  make_dirs(c.k.output_dir);
  std::unique_ptr<StandbySession> standby = start_profile_standby(spec, settings, c.k.output_dir);
  auto inst = load_kernel(spec, /*extra_copies=*/2.0);
  trace_event("profile: kernel loaded");
  inst->prepare(spec.seed);
  trace_event("profile: prepared");
  auto out = run_profile(*inst, spec, settings, c.k.output_dir, kernel_header_rows(spec, *inst), &standby);
  if (out.classified) {
    std::fputs(verdict_text(out.analysis->verdict).c_str(), stdout);
    const CallVerdict& call = out.analysis->verdict;
    if (call.leading >= 0) {
      auto hl = out.hot_lines.find(call.kernels[static_cast<size_t>(call.leading)].id);
      if (hl != out.hot_lines.end()) std::fputs(hot_lines_text(hl->second).c_str(), stdout);
    }
    if (!out.hot_lines_note.empty()) std::printf("  hot lines: not available: %s\n", out.hot_lines_note.c_str());
  } else {
    std::printf("%s %s\n", styled("not classified:", Style::Warn).c_str(), out.failure.c_str());
    if (!out.hint.empty()) std::printf("  hint: %s\n", out.hint.c_str());
  }
  std::printf("reports: %s/ncu_summary.md, ncu_details.md, profile.json%s\n", c.k.output_dir.c_str(),
              out.ncu.report_path.empty() ? "" : ", profile.ncu-rep");
  if (!settings.run_ncu) return 0;
  return out.classified ? 0 : 1;
}

}  // namespace

void register_profile(CLI::App& app, CommandAction& action) {
  auto c = std::make_shared<ProfileCmd>();
  auto* sub =
      app.add_subcommand("profile", "Time a kernel, collect Nsight Compute metrics and classify the bottleneck");
  sub->footer(
      "Time a kernel and find what bounds it. Execution time: CUDA events around each call after warm-up\n"
      "(L2 flushed, outputs restored between calls) and CUPTI kernel records. Then Nsight Compute on one\n"
      "call (kprof re-runs itself under ncu with --clock-control none) and the classification: Memory-,\n"
      "Compute-, Latency-, Occupancy-Bound or Mixed, with the metric, value and threshold behind it.\n"
      "Writes OUTPUT_DIR/ncu_summary.md, ncu_details.md, profile.json and profile.ncu-rep.\n"
      "Exit 0 classified (or timing only with --no-ncu), 1 ncu could not measure, 2 usage/input error.");
  add_kernel_options(sub, c->k, /*several=*/false, /*with_ref=*/false, /*with_output=*/true);
  add_profile_options(sub, c->p);
  sub->callback([sub, c, &action] {
    finish_kernel_options(sub, c->k);
    action = [c] { return run_profile_command(*c); };
  });
}

}  // namespace kprof
