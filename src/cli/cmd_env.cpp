// kprof env: is this machine ready to check and profile kernels? Writes env_check.md + .json.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "api/command_requests.hpp"
#include "cli/table_options.hpp"
#include "core/json_text.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "stages/env/env_check.hpp"
#include "flows/report_files.hpp"
#include "report/env_report.hpp"
#include "stages/env/readiness.hpp"

namespace kprof {
namespace {

using EnvCli = api::EnvRequest;

int run_env(const EnvCli& o) {
  std::string md = o.output_file;
  // A folder (existing, or written with a trailing '/') gets env_check.md inside it.
  if (!md.empty() && (md.back() == '/' || path_exists(md + "/."))) md = join_path(md, "env_check.md");
  EnvOptions opts;
  opts.gpu = o.gpu;
  opts.timeout_s = o.probe_timeout_s;
  EnvReport report = assess_env(collect_env(opts));
  write_env_reports(report, md, !o.no_html);
  if (o.json) {
    std::fputs((json_text(env_json(report)) + "\n").c_str(), stdout);
  } else {
    std::fputs(env_summary(report, color_enabled(stdout)).c_str(), stdout);
    std::fputs(("Report: " + md + " and " + json_path_for(md) + "\n").c_str(), stdout);
  }
  std::fflush(stdout);
  const CudaVersions& v = report.facts.gpu.versions;
  if (v.error.empty() && (o.gpu < 0 || o.gpu >= v.device_count)) {
    print_error(report.facts.gpu.error, "pick --gpu 0.." + std::to_string(v.device_count - 1));
    return static_cast<int>(ExitCode::Usage);
  }
  return static_cast<int>(report.ready ? ExitCode::Ok : ExitCode::Failed);
}

}  // namespace

void register_env(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<EnvCli>();
  auto* sub =
      app.add_subcommand("env", "Check that this machine is ready (GPU, driver, ncu counters, nvcc, Python packages)");
  sub->footer(
      "Checks the machine before checking or profiling a kernel: the GPU, CUDA runtime and driver, NVML clocks,\n"
      "nvcc, ncu (and whether it may read performance counters), compute-sanitizer, the Python kprof embeds\n"
      "with PyTorch / Triton / CuTe DSL, the CUTLASS headers, CUDA_* variables. Writes env_check.md and\n"
      "env_check.json. Exit 0 ready, 1 not ready (each failed item says why and what to do), 2 bad options.");
  add_table_option(sub, "env", "--output", o->output_file);
  add_table_option(sub, "env", "--gpu", o->gpu);
  add_table_option(sub, "env", "--json", o->json);
  add_table_option(sub, "env", "--timeout", o->probe_timeout_s);
  add_table_option(sub, "env", "--no-html", o->no_html);
  sub->callback([&action, o] {
    api::validate(*o);
    action = [o] { return run_env(*o); };
  });
}

}  // namespace kprof
