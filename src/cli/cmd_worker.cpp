// kprof __worker (hidden): runs one shard of a scaled run's units (flows/worker.hpp). Started by
// `kprof run --sweep/--gpus` (one per GPU) and by each task of `kprof run --slurm`'s array job.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include "cli/commands.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host_json.hpp"
#include "core/settings.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/tools.hpp"
#include "flows/worker.hpp"

namespace kprof {
namespace {

/// The orchestration tests' fault injection (docs/SCALE.md), read from KPROF_FAULT_INJECT
/// (core/settings.hpp): "<unit id>=crash" aborts the worker process when it reaches that unit;
/// "<unit id>=sleep:S" sleeps S seconds there (a unit that runs past a Slurm --time); items
/// separated by ';'. Empty spec: no hook.
std::function<void(const Unit&)> fault_injection(const std::string& spec) {
  if (spec.empty()) return {};
  return [spec](const Unit& u) {
    for (const auto& item : split(spec, ';')) {
      auto eq = item.rfind('=');
      if (eq == std::string::npos || item.substr(0, eq) != u.id()) continue;
      std::string what = item.substr(eq + 1);
      if (what == "crash") {
        print_progress("[" + u.id() + "] KPROF_FAULT_INJECT: aborting the worker");
        std::abort();
      }
      if (what.rfind("sleep:", 0) == 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(parse_number(what.substr(6)).value_or(0)));
    }
  };
}

struct WorkerCli {
  std::string units;
  std::string shard = "0/1";
  std::string output_dir;  ///< -o: overrides the unit list's output folder (a copy of the folder)
  std::string unit;
  bool in_process = false;
  bool one_gpu = false;
  std::string units_path;  ///< `units` made absolute, while parsing
  UnitPlan plan;           ///< read while parsing: its request's host is taken before CUPTI loads
};

int run_worker_command(const WorkerCli& c) {
  WorkerRequest req;
  req.units_path = c.units_path;
  req.plan = c.plan;
  if (!c.output_dir.empty()) req.plan.out = absolute_path(c.output_dir);
  if (!req.plan.cwd.empty() && ::chdir(req.plan.cwd.c_str()) != 0)
    throw usage_error("cannot enter " + req.plan.cwd + " (the folder of the run): " + std::strerror(errno),
                      "the kernel files and ref.py must be reachable at the same paths on this node");
  if (req.plan.request.is_null())
    throw usage_error(req.units_path + " holds no run request (a unit list of an older kprof)",
                      "run the same `kprof run` command again: it writes the unit list anew and keeps finished units");
  RunCmd run = api::run_request_from_json(req.plan.request);  // the one request: no words parsed again
  api::validate(run);
  req.base = make_run_request(run);
  if (c.one_gpu)
    for (auto& v : req.base.versions) v.gpu = 0;  // CUDA_VISIBLE_DEVICES names this worker's one GPU
  auto [k, n] = parse_shard(c.shard);
  req.shard = k;
  req.shards = n;
  req.only = c.unit;
  req.in_process = c.in_process;
  req.self_exe = self_command();
  req.before_unit = fault_injection(settings().fault_inject);
  return run_worker(req);
}

}  // namespace

void register_worker(CLI::App& app, CommandAction& action) {
  auto c = std::make_shared<WorkerCli>();
  auto* sub = app.add_subcommand("__worker", "Internal: runs one shard of the units of a scaled `kprof run`");
  sub->group("");  // hidden from --help
  sub->add_option("--units", c->units, "units.json of the run")->required();
  sub->add_option("--shard", c->shard, "K/N: this worker's shard")->capture_default_str();
  sub->add_option("-o,--output-dir", c->output_dir, "Output folder (default: the one units.json names)");
  sub->add_option("--unit", c->unit, "Run only this unit (VERSION/KEY)");
  sub->add_flag("--in-process", c->in_process, "Run the units in this process (no supervising parent)");
  sub->add_flag("--one-gpu", c->one_gpu, "CUDA_VISIBLE_DEVICES names one GPU: run on device 0");
  sub->callback([c, &action] {
    c->units_path = absolute_path(c->units);
    c->plan = read_unit_plan(c->units_path);
    if (c->plan.request.is_object() && c->plan.request.contains("host"))
      adopt_host(host_from_json(c->plan.request["host"]));  // the parent's host (core/host_json.hpp)
    action = [c] { return run_worker_command(*c); };
  });
}

}  // namespace kprof
