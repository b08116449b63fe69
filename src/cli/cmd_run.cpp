// kprof run: the seed's whole workflow (env -> check -> profile -> classification) for one kernel
// or several versions of it, compared in DIR/comparison.md.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.hpp"
#include "cli/profile_settings.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "cli/run_options.hpp"
#include "core/host.hpp"
#include "core/sweep.hpp"
#include "core/tools.hpp"
#include "flows/run/run_flow.hpp"
#include "flows/scale_run.hpp"
#include "stages/env/gpu_info.hpp"
#include "core/settings.hpp"

namespace kprof {
namespace {

int run_scaled_command(RunCmd& c) {
  ScaleRequest sr;
  sr.run = make_run_request(c);
  api::RunCommandRequest unit = api::without_scale(c);
  unit.host = current_host();            // the workers take this host (core/host_json.hpp)
  sr.unit_request = api::to_json(unit);  // each worker's one request (units.json)
  for (const auto& s : c.sweep) sr.axes.push_back(parse_sweep_axis(s));
  if (!c.gpus.empty()) sr.gpus = parse_gpu_list(c.gpus, c.gpus == "all" ? cuda_versions().device_count : 0);
  sr.slurm = slurm_options(c);
  if (settings().slurm_poll_s) sr.slurm.poll_s = *settings().slurm_poll_s;
  sr.self_exe = self_command();
  return run_scaled(sr);
}

int run_run_command(RunCmd& c) {
  if (api::is_scaled(c)) return run_scaled_command(c);
  RunRequest req = make_run_request(c);
  RunOutcome out = run_workflow(req);
  if (!out.env_ready) return std::max(out.exit_code, 1);  // 2: a build's input error was said first
  std::printf("\n%s\n", styled("Summary", Style::Bold).c_str());
  std::fputs(versions_summary_text(out.rows, out.comparison).c_str(), stdout);
  std::printf("(* fastest correct version, = as fast within noise)  report: %s\n",
              join_path(c.k.output_dir, "comparison.md").c_str());
  return out.exit_code;
}

}  // namespace

void register_run(CLI::App& app, CommandAction& action) {
  auto c = std::make_shared<RunCmd>();
  auto* sub = app.add_subcommand(
      "run", "The whole workflow (env, check, profile) for one kernel or several versions, compared");
  sub->footer(
      "The whole workflow for one kernel or several versions of it, in one process: environment check\n"
      "(stops if a required item fails), correctness against ref.py, then for each correct version timing,\n"
      "Nsight Compute and the classification, then a comparison. Same dimensions, seed, buffer sizes and GPU\n"
      "for every version. Writes OUTPUT_DIR/env_check.md, OUTPUT_DIR/<version>/{correctness.md,\n"
      "ncu_summary.md, ncu_details.md, profile.json} and OUTPUT_DIR/comparison.md/.json. Nsight Compute\n"
      "profiles all correct versions in one session (OUTPUT_DIR/run.ncu-rep, one NVTX range kprof:<version>\n"
      "each); a version that session cannot attribute, or every version with --ncu-session per-version, gets\n"
      "its own OUTPUT_DIR/<version>/profile.ncu-rep.\n"
      "A version that fails correctness is not profiled; one that cannot be built, loaded or profiled gets\n"
      "its row with the error, and the other versions go on (after a hung kernel nothing more can run).\n"
      "Exit 0 when every version is correct and classified; else the worst of the versions: 2 when one\n"
      "had a usage/input error (including a broken ref.py), 1 when one failed.\n\n"
      "At scale (docs/SCALE.md in the kprof source): --sweep runs every version at every size (one result file per "
      "unit in\n"
      "OUTPUT_DIR/units/, a rerun runs only the units without one), --gpus spreads the units over this host's\n"
      "GPUs (one worker per GPU), --slurm submits them as a Slurm array job; OUTPUT_DIR/comparison.md then has\n"
      "one table per size and per version its class and % of bound by size (sweep.svg). Exit 0 when every\n"
      "unit is ok, 1 otherwise.");
  add_run_options(sub, *c);
  sub->callback([sub, c, &action] {
    finish_kernel_options(sub, c->k);
    check_scale_options(sub, *c);
    action = [c] { return run_run_command(*c); };
  });
}

}  // namespace kprof
