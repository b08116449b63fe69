#include "cli/run_options.hpp"

#include <set>

#include "cli/profile_settings.hpp"
#include "cli/table_options.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"

namespace kprof {
namespace {

std::vector<std::string>& stored_invocation() {
  static std::vector<std::string> argv;
  return argv;
}

/// --decide and its options (docs/METHOD.md states the rule).
void add_decide_options(CLI::App* sub, RunCmd& c) {
  CLI::Option* decide = add_table_option(sub, "run", "--decide", c.decide);
  add_table_option(sub, "run", "--rounds", c.rounds)->needs(decide);
  add_table_option(sub, "run", "--decide-budget", c.decide_budget_s)->needs(decide);
  add_table_option(sub, "run", "--calls-per-round", c.calls_per_round)->needs(decide);
  add_table_option(sub, "run", "--min-gain", c.min_gain_pct)->needs(decide);
  add_table_option(sub, "run", "--confirm", c.confirm)->needs(decide);
  add_table_option(sub, "run", "--decide-time", c.decide_time)->needs(decide);
  add_table_option(sub, "run", "--decide-ncu", c.decide_ncu)->needs(decide);
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

bool is_scaled(const RunCmd& c) { return !c.sweep.empty() || !c.gpus.empty() || c.slurm.enabled; }

void check_scale_options(const CLI::App* sub, const RunCmd& c) {
  for (const char* o : {"--partition", "--gres", "--time", "--max-parallel", "--units-per-task", "--no-wait"})
    if (!c.slurm.enabled && sub->get_option(o)->count() > 0)
      throw usage_error(std::string(o) + " is an option of --slurm",
                        "add --slurm to run on a Slurm cluster, or drop " + std::string(o));
  if (c.slurm.enabled && !c.gpus.empty())
    throw usage_error("--gpus and --slurm exclude each other", "with --slurm, Slurm gives each task its GPU (--gres)");
  if (c.decide && is_scaled(c))
    throw usage_error("--decide times the versions in one process: it does not combine with --sweep, --gpus or --slurm",
                      "decide at one size: drop the scale options, or run --decide once per size");
  if (!c.gpus.empty() && sub->get_option("--gpu")->count() > 0)
    throw usage_error("--gpus and --gpu exclude each other", "give the GPUs with --gpus 0,1,... only");
}

std::vector<std::string> strip_scale_args(const std::vector<std::string>& words) {
  static const std::set<std::string> with_value = {"-o",     "--output-dir",   "--sweep",
                                                   "--gpus", "--partition",    "--gres",
                                                   "--time", "--max-parallel", "--units-per-task"};
  static const std::set<std::string> flags = {"--slurm", "--no-wait"};
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    std::string name = w.substr(0, w.find('='));
    if (flags.count(w)) continue;
    if (with_value.count(name)) {
      if (name == w) ++i;  // "--opt VALUE"
      continue;
    }
    if (w.rfind("-o", 0) == 0 && w.size() > 2 && w[2] != '-') continue;  // "-oDIR"
    out.push_back(w);
  }
  return out;
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
    throw usage_error(std::string("the run options of units.json do not parse: ") + e.what(),
                      "the kernel files must be reachable from the folder units.json names (cwd)");
  }
  finish_kernel_options(sub, c.k);
  return c;
}

void set_invocation(const std::vector<std::string>& argv) { stored_invocation() = argv; }
const std::vector<std::string>& invocation() { return stored_invocation(); }

}  // namespace kprof
