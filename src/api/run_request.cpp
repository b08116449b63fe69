#include "api/run_request.hpp"

#include "api/request_fields.hpp"
#include "api/rules.hpp"
#include "device/gpu_index.hpp"

namespace kprof::api {

using nlohmann::json;

std::set<std::string> given_run_options(const RunCommandRequest& r) {
  const RunCommandRequest d;
  std::set<std::string> g;
  auto mark = [&g](bool on, const char* flag) {
    if (on) g.insert(flag);
  };
  mark(r.k.spec.gpu != kDefaultGpu, "--gpu");
  mark(r.env_timeout_s != d.env_timeout_s, "--env-timeout");
  mark(r.ncu_session != d.ncu_session, "--ncu-session");
  mark(!r.sweep.empty(), "--sweep");
  mark(!r.gpus.empty(), "--gpus");
  mark(r.slurm.enabled, "--slurm");
  mark(r.slurm.partition != d.slurm.partition, "--partition");
  mark(r.slurm.gres != d.slurm.gres, "--gres");
  mark(r.slurm.time != d.slurm.time, "--time");
  mark(r.slurm.max_parallel != d.slurm.max_parallel, "--max-parallel");
  mark(r.slurm.units_per_task != d.slurm.units_per_task, "--units-per-task");
  mark(r.no_wait, "--no-wait");
  mark(r.decide, "--decide");
  mark(r.confirm, "--confirm");
  mark(r.decide_ncu, "--decide-ncu");
  mark(r.rounds != d.rounds, "--rounds");
  mark(r.decide_budget_s != d.decide_budget_s, "--decide-budget");
  mark(r.calls_per_round != d.calls_per_round, "--calls-per-round");
  mark(r.min_gain_pct != d.min_gain_pct, "--min-gain");
  mark(r.decide_time != d.decide_time, "--decide-time");
  return g;
}

bool is_scaled(const RunCommandRequest& r) { return !r.sweep.empty() || !r.gpus.empty() || r.slurm.enabled; }

RunCommandRequest without_scale(RunCommandRequest r) {
  const RunCommandRequest d;
  r.sweep.clear();
  r.gpus.clear();
  r.slurm = d.slurm;
  r.no_wait = false;
  return r;
}

void validate(const RunCommandRequest& r, const std::set<std::string>& given) {
  check_range("run", "--env-timeout", r.env_timeout_s);
  check_choice("run", "--ncu-session", r.ncu_session);
  check_range("run", "--max-parallel", r.slurm.max_parallel);
  if (r.slurm.units_per_task != 0) check_range("run", "--units-per-task", r.slurm.units_per_task);
  check_range("run", "--rounds", r.rounds);
  check_range("run", "--decide-budget", r.decide_budget_s);
  check_range("run", "--calls-per-round", r.calls_per_round);
  check_range("run", "--min-gain", r.min_gain_pct);
  check_choice("run", "--decide-time", r.decide_time);
  check_option_rules("run", given);
}

void validate(const RunCommandRequest& r) {
  validate(r.k, /*several=*/true);
  validate(r.p);
  validate(r, given_run_options(r));
}

json to_json(const RunCommandRequest& r) {
  json j = to_json(r.k);
  j.update(to_json(r.p));
  j.update({{"command", "run"},
            {"env_probe_timeout_s", r.env_timeout_s},
            {"ncu_session", r.ncu_session},
            {"sweep", r.sweep},
            {"gpus", r.gpus},
            {"slurm",
             {{"enabled", r.slurm.enabled},
              {"partition", r.slurm.partition},
              {"gres", r.slurm.gres},
              {"time", r.slurm.time},
              {"max_parallel", r.slurm.max_parallel},
              {"units_per_task", r.slurm.units_per_task},
              {"no_wait", r.no_wait}}},
            {"decide",
             {{"enabled", r.decide},
              {"confirm", r.confirm},
              {"ncu", r.decide_ncu},
              {"rounds", r.rounds},
              {"budget_s", r.decide_budget_s},
              {"calls_per_round", r.calls_per_round},
              {"min_gain_pct", r.min_gain_pct},
              {"time", r.decide_time}}}});
  return j;
}

RunCommandRequest run_request_from_json(const json& j) {
  RunCommandRequest r;
  r.k = kernel_request_from_json(j);
  r.p = profile_request_from_json(j);
  read_field(j, "env_probe_timeout_s", r.env_timeout_s);
  read_field(j, "ncu_session", r.ncu_session);
  read_field(j, "sweep", r.sweep);
  read_field(j, "gpus", r.gpus);
  if (auto s = j.find("slurm"); s != j.end() && !s->is_null()) {
    check_object(*s, "the request's \"slurm\"");
    read_field(*s, "enabled", r.slurm.enabled);
    read_field(*s, "partition", r.slurm.partition);
    read_field(*s, "gres", r.slurm.gres);
    read_field(*s, "time", r.slurm.time);
    read_field(*s, "max_parallel", r.slurm.max_parallel);
    read_field(*s, "units_per_task", r.slurm.units_per_task);
    read_field(*s, "no_wait", r.no_wait);
  }
  if (auto d = j.find("decide"); d != j.end() && !d->is_null()) {
    check_object(*d, "the request's \"decide\"");
    read_field(*d, "enabled", r.decide);
    read_field(*d, "confirm", r.confirm);
    read_field(*d, "ncu", r.decide_ncu);
    read_field(*d, "rounds", r.rounds);
    read_field(*d, "budget_s", r.decide_budget_s);
    read_field(*d, "calls_per_round", r.calls_per_round);
    read_field(*d, "min_gain_pct", r.min_gain_pct);
    read_field(*d, "time", r.decide_time);
  }
  return r;
}

}  // namespace kprof::api
