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

// The run request's own fields, listed once per section (api/request_fields.hpp put_fields /
// get_fields): the top level, "slurm" and "decide".
namespace {

const auto kRunFields = [](auto& r, auto&& f) {
  f("env_probe_timeout_s", r.env_timeout_s);
  f("ncu_session", r.ncu_session);
  f("sweep", r.sweep);
  f("gpus", r.gpus);
  f("host", r.host);
};
const auto kSlurmFields = [](auto& r, auto&& f) {
  f("enabled", r.slurm.enabled);
  f("partition", r.slurm.partition);
  f("gres", r.slurm.gres);
  f("time", r.slurm.time);
  f("max_parallel", r.slurm.max_parallel);
  f("units_per_task", r.slurm.units_per_task);
  f("no_wait", r.no_wait);
};
const auto kDecideFields = [](auto& r, auto&& f) {
  f("enabled", r.decide);
  f("confirm", r.confirm);
  f("ncu", r.decide_ncu);
  f("rounds", r.rounds);
  f("budget_s", r.decide_budget_s);
  f("calls_per_round", r.calls_per_round);
  f("min_gain_pct", r.min_gain_pct);
  f("time", r.decide_time);
};

/// The section `key` of `j` read with `fields` when present (Error exit 2 when it is not an object).
template <class Fields>
void get_section(const json& j, const char* key, RunCommandRequest& r, const Fields& fields) {
  auto s = j.find(key);
  if (s == j.end() || s->is_null()) return;
  check_object(*s, (std::string("the request's \"") + key + "\"").c_str());
  get_fields(*s, r, fields);
}

}  // namespace

json to_json(const RunCommandRequest& r) {
  json j = to_json(r.k);
  j.update(to_json(r.p));
  j["command"] = "run";
  put_fields(j, r, kRunFields);
  j["slurm"] = json::object();
  put_fields(j["slurm"], r, kSlurmFields);
  j["decide"] = json::object();
  put_fields(j["decide"], r, kDecideFields);
  return j;
}

RunCommandRequest run_request_from_json(const json& j) {
  RunCommandRequest r;
  r.k = kernel_request_from_json(j);
  r.p = profile_request_from_json(j);
  get_fields(j, r, kRunFields);
  get_section(j, "slurm", r, kSlurmFields);
  get_section(j, "decide", r, kDecideFields);
  return r;
}

}  // namespace kprof::api
