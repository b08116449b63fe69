#include "cli/run_options.hpp"

#include <set>

#include "cli/profile_settings.hpp"
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
  CLI::Option* decide = sub->add_flag(
      "--decide", c.decide,
      "Keep or revert: every correct version stays loaded, then all are timed in interleaved rounds (a new random "
      "order each round, the first version also against itself as the A/A noise floor); one keep / revert / "
      "inconclusive per version against the first (comparison.json \"decision\"); timing only unless --decide-ncu");
  sub->add_option("--rounds", c.rounds, "--decide: interleaved rounds to make")
      ->capture_default_str()
      ->check(CLI::Range(kMinRounds, 1000000))
      ->needs(decide);
  sub->add_option("--decide-budget", c.decide_budget_s,
                  "--decide: seconds the rounds may take; they stop there (after 10 rounds) even before --rounds")
      ->capture_default_str()
      ->check(positive_number())
      ->needs(decide);
  sub->add_option("--calls-per-round", c.calls_per_round,
                  "--decide: calls of each version per round (its time in the round is their median)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->needs(decide);
  sub->add_option("--min-gain", c.min_gain_pct,
                  "--decide: the smallest gain, percent, that counts (the threshold is the larger of it and the "
                  "A/A floor)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0))
      ->needs(decide);
  sub->add_flag("--confirm", c.confirm,
                "--decide: a second, independent set of rounds; keep or revert only when both sets agree")
      ->needs(decide);
  sub->add_option("--decide-time", c.decide_time,
                  "--decide: what a round times: call (CUDA events around each call) or kernel (the call's kernels, "
                  "CUPTI records: no launch overhead)")
      ->capture_default_str()
      ->check(CLI::IsMember({"call", "kernel"}))
      ->needs(decide);
  sub->add_flag("--decide-ncu", c.decide_ncu,
                "--decide: also time and profile each version with ncu as a plain run does, before the rounds")
      ->needs(decide);
}

}  // namespace

void add_run_options(CLI::App* sub, RunCmd& c) {
  add_kernel_options(sub, c.k, /*several=*/true, /*with_ref=*/true, /*with_output=*/true);
  add_profile_options(sub, c.p);
  sub->add_option("--env-timeout", c.env_timeout_s, "Seconds each environment probe may take")
      ->capture_default_str()
      ->check(positive_number());
  sub->add_option("--ncu-session", c.ncu_session,
                  "one: every correct version profiled in one Nsight Compute session (one ncu process, one "
                  "PyTorch import; a version it cannot attribute, e.g. one that crashes under ncu, falls back "
                  "to its own); per-version: one ncu process per version")
      ->capture_default_str()
      ->check(CLI::IsMember({"one", "per-version"}));
  sub->add_option("--sweep", c.sweep,
                  "Run every version at every size: NAME=LO..HI (powers of two from LO: N=1Ki..64Mi; Ki/Mi/Gi "
                  "suffixes) or NAME=V1,V2,...; repeat for a grid; --size expressions are evaluated per point "
                  "(docs/SCALE.md)")
      ->allow_extra_args(false);
  sub->add_option("--gpus", c.gpus,
                  "Spread the units over GPUs of this host, one worker process per GPU (CUDA_VISIBLE_DEVICES): "
                  "all, or indices / UUIDs 0,1,...");
  sub->add_flag("--slurm", c.slurm.enabled,
                "Run the units as a Slurm array job (sbatch) over OUTPUT_DIR, which must be on a folder the "
                "nodes share; waits and merges (docs/SCALE.md)");
  sub->add_option("--partition", c.slurm.partition, "--slurm: the partition");
  sub->add_option("--gres", c.slurm.gres, "--slurm: generic resources per array task (none: no --gres)")
      ->capture_default_str();
  sub->add_option("--time", c.slurm.time, "--slurm: time limit per array task (Slurm's format, e.g. 30 or 1:00:00)");
  sub->add_option("--max-parallel", c.slurm.max_parallel, "--slurm: array tasks running at once")
      ->capture_default_str()
      ->check(positive_number());
  sub->add_option("--units-per-task", c.slurm.units_per_task,
                  "--slurm: units per array task (default: the number of versions, one size per task)")
      ->check(positive_number());
  sub->add_flag("--no-wait", c.no_wait, "--slurm: submit and return; run the same command again to merge");
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
