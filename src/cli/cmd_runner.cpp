// kprof __runner (hidden): what ncu profiles. Rebuilds the kernel instance from the same options
// and seed as `profile`, warms up outside the profiled range, then makes exactly one call between
// cudaProfilerStart and cudaProfilerStop (ncu runs with --profile-from-start off).
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "cli/commands.hpp"
#include "cli/kernel_options.hpp"
#include "cli/validators.hpp"
#include "device/cuda.hpp"
#include "core/error.hpp"
#include "kernel/guarded_call.hpp"
#include "kernel/load.hpp"

namespace kprof {
namespace {

/// More replay passes than any metric set kprof asks for needs (H200, ncu 2025.3.1: 22 for kprof's
/// list, 38 for --set full).
constexpr double kMaxReplayPasses = 50;

struct RunnerOptions {
  KernelCliOptions k;
  int warmup = 3;
};

void fail_on(const std::optional<KernelFault>& f) {
  if (f) throw check_failed(f->message, f->hint);
}

int run_runner(RunnerOptions& o) {
  KernelSpec spec = spec_for(o.k, 0);
  select_gpu(spec.gpu);
  auto inst = load_kernel(spec, /*extra_copies=*/0.0);
  inst->prepare(spec.seed);
  for (int i = 0; i < o.warmup; ++i) fail_on(guarded_call(*inst, spec.timeout_s));  // compiles, autotunes
  cuda_check(cudaProfilerStart(), "cudaProfilerStart");
  // ncu replays the profiled call's kernels once per replay pass inside this call: allow the
  // per-call limit once per pass. (A kernel that hangs fails kprof's timing before ncu runs, and
  // the ncu run as a whole stays bounded by --ncu-timeout.)
  auto fault = guarded_call(*inst, spec.timeout_s * kMaxReplayPasses);
  cudaProfilerStop();
  fail_on(fault);
  return 0;
}

}  // namespace

void register_runner(CLI::App& app, CommandAction& action) {
  auto opts = std::make_shared<RunnerOptions>();
  auto* sub = app.add_subcommand("__runner", "Internal: the process `kprof profile` runs under ncu");
  sub->group("");  // hidden from --help
  add_kernel_options(sub, opts->k, /*several=*/false, /*with_ref=*/false, /*with_output=*/false);
  sub->add_option("--warmup", opts->warmup, "Calls before the profiled one")->check(non_negative_number());
  sub->callback([sub, opts, &action] {
    finish_kernel_options(sub, opts->k);
    action = [opts] { return run_runner(*opts); };
  });
}

}  // namespace kprof
