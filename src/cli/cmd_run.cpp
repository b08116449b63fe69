// kprof run: the seed's whole workflow (env -> check -> profile -> classification) for one kernel
// or several versions of it, compared in DIR/comparison.md.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/profile_settings.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "flows/run_flow.hpp"

namespace kprof {
namespace {

struct RunCmd {
  KernelCliOptions k;
  ProfileCliOptions p;
  double env_timeout_s = 60;
  std::string ncu_session = "one";
};

int run_run_command(RunCmd& c) {
  RunRequest req;
  for (size_t i = 0; i < c.k.kernels.size(); ++i) req.versions.push_back(spec_for(c.k, i));
  req.ref = c.k.ref;
  req.check.seed = c.k.spec.seed;
  req.check.trials = c.k.trials;
  req.check.timeout_s = c.k.spec.timeout_s;
  if (c.k.atol >= 0) req.check.atol = c.k.atol;
  if (c.k.rtol >= 0) req.check.rtol = c.k.rtol;
  req.profile = make_profile_settings(c.k, c.p);
  req.output_dir = c.k.output_dir;
  req.env_timeout_s = c.env_timeout_s;
  req.one_ncu_session = c.ncu_session == "one";
  RunOutcome out = run_workflow(req);
  if (!out.env_ready) return 1;
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
      "had a usage/input error (including a broken ref.py), 1 when one failed.");
  add_kernel_options(sub, c->k, /*several=*/true, /*with_ref=*/true, /*with_output=*/true);
  add_profile_options(sub, c->p);
  sub->add_option("--env-timeout", c->env_timeout_s, "Seconds each environment probe may take")
      ->capture_default_str()
      ->check(positive_number());
  sub->add_option("--ncu-session", c->ncu_session,
                  "one: every correct version profiled in one Nsight Compute session (one ncu process, one "
                  "PyTorch import; a version it cannot attribute, e.g. one that crashes under ncu, falls back "
                  "to its own); per-version: one ncu process per version")
      ->capture_default_str()
      ->check(CLI::IsMember({"one", "per-version"}));
  sub->callback([sub, c, &action] {
    finish_kernel_options(sub, c->k);
    action = [c] { return run_run_command(*c); };
  });
}

}  // namespace kprof
