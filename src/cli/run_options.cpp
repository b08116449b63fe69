#include "cli/run_options.hpp"

#include <set>

#include "cli/profile_settings.hpp"
#include "cli/table_options.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"

namespace kprof {
namespace {

/// --decide and its options (docs/METHOD.md states the rule; each needs --decide: the table's
/// rule, checked by check_scale_options).
void add_decide_options(CLI::App* sub, RunCmd& c) {
  add_table_option(sub, "run", "--decide", c.decide);
  add_table_option(sub, "run", "--rounds", c.rounds);
  add_table_option(sub, "run", "--decide-budget", c.decide_budget_s);
  add_table_option(sub, "run", "--calls-per-round", c.calls_per_round);
  add_table_option(sub, "run", "--min-gain", c.min_gain_pct);
  add_table_option(sub, "run", "--confirm", c.confirm);
  add_table_option(sub, "run", "--decide-time", c.decide_time);
  add_table_option(sub, "run", "--decide-ncu", c.decide_ncu);
}

}  // namespace

void add_run_options(CLI::App* sub, RunCmd& c) {
  add_kernel_options(sub, c.k, /*several=*/true, /*with_ref=*/true, /*with_output=*/true);
  add_profile_options(sub, c.p);
  add_table_option(sub, "run", "--env-timeout", c.env_timeout_s);
  add_table_option(sub, "run", "--ncu-session", c.ncu_session);
  add_table_option(sub, "run", "--sweep", c.sweep);
  add_table_option(sub, "run", "--gpus", c.gpus);
  add_table_option(sub, "run", "--slurm", c.slurm.enabled);
  add_table_option(sub, "run", "--partition", c.slurm.partition);
  add_table_option(sub, "run", "--gres", c.slurm.gres);
  add_table_option(sub, "run", "--time", c.slurm.time);
  add_table_option(sub, "run", "--max-parallel", c.slurm.max_parallel);
  add_table_option(sub, "run", "--units-per-task", c.slurm.units_per_task);
  add_table_option(sub, "run", "--no-wait", c.no_wait);
  add_decide_options(sub, c);
}

RunRequest make_run_request(const RunCmd& c) {
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
  req.decide.enabled = c.decide;
  req.decide.confirm = c.confirm;
  req.decide.ncu = c.decide_ncu;
  req.decide.rounds.rounds = c.rounds;
  req.decide.rounds.budget_s = c.decide_budget_s;
  req.decide.rounds.calls_per_slot = c.calls_per_round;
  req.decide.rule.min_gain = c.min_gain_pct / 100;
  req.decide.kernel_time = c.decide_time == "kernel";
  if (c.decide && !c.decide_ncu) req.profile.run_ncu = false;  // timing only unless asked
  return req;
}

void check_scale_options(const CLI::App* sub, const RunCmd& c) {
  std::set<std::string> given = given_options(sub);
  for (const auto& flag : api::given_run_options(c)) given.insert(flag);
  api::validate(c, given);
}

SlurmOptions slurm_options(const RunCmd& c) {
  SlurmOptions s;
  s.enabled = c.slurm.enabled;
  s.partition = c.slurm.partition;
  s.gres = c.slurm.gres;
  s.time = c.slurm.time;
  s.max_parallel = c.slurm.max_parallel;
  s.units_per_task = c.slurm.units_per_task;
  s.wait = !c.no_wait;
  return s;
}

RunCmd parse_run_words(const std::vector<std::string>& words) {
  CLI::App app{"kprof", "kprof"};
  RunCmd c;
  CLI::App* sub = app.add_subcommand("run", "");
  add_run_options(sub, c);
  std::vector<std::string> argv = {"kprof", "run"};
  argv.insert(argv.end(), words.begin(), words.end());
  std::vector<const char*> cargs;
  for (const auto& a : argv) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string("the run options do not parse: ") + e.what(), "see `kprof run --help`");
  }
  finish_kernel_options(sub, c.k);
  check_scale_options(sub, c);
  return c;
}

}  // namespace kprof
