#include "flows/worker.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/error.hpp"
#include "core/file_lock.hpp"
#include "core/outcome.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "device/cuda.hpp"
#include "kernel/build.hpp"
#include "kernel/library.hpp"
#include "kernel/load.hpp"
#include "report/env_report.hpp"
#include "flows/report_files.hpp"
#include "stages/env/env_check.hpp"
#include "stages/env/gpu_info.hpp"

namespace kprof {
namespace {

void say_waiting(const std::string& path) { print_progress("waiting for the GPU: another kprof worker holds " + path); }

/// The spec of unit `u`: its version's spec at its dimensions.
KernelSpec unit_spec(const WorkerRequest& req, const Unit& u) {
  if (u.version_index >= req.base.versions.size())
    throw usage_error("unit " + u.id() + " names version " + std::to_string(u.version_index) + " of " +
                          std::to_string(req.base.versions.size()),
                      "units.json does not match its request: run kprof run again");
  KernelSpec spec = req.base.versions[u.version_index];
  for (const auto& [name, value] : u.dims) spec.dims.set(name, value);
  return spec;
}

/// Whether --build was asked and the .so is still missing or older than the .cu: the build failed.
bool build_failed(const KernelSpec& spec) {
  if (!spec.build || spec.kernel.size() < 3 || spec.kernel.substr(spec.kernel.size() - 3) != ".cu") return false;
  std::string so = spec.so_path.empty() ? default_so_path(spec.kernel) : spec.so_path;
  return needs_rebuild(spec.kernel, so);
}

UnitResult worker_result(const Unit& u, const UnitPlace& place, UnitStatus status, const std::string& reason) {
  UnitResult r = placeholder_result(u, status, reason);
  r.source = ResultSource::Worker;
  r.place = place;
  return r;
}

}  // namespace

void UnitLog::add(const std::string& out, const UnitResult& r) {
  write_unit_result(out, r);
  units_.push_back({{"id", r.unit.id()}, {"status", unit_status_id(r.status)}});
  publish();
}

namespace {
/// The {"id", ...} entries of a worker's outcome ("results": {"units": [...]}).
std::vector<nlohmann::json> unit_entries(const ChildOutcome& o) {
  std::vector<nlohmann::json> out;
  if (!o.found || !o.results.is_object()) return out;
  auto units = o.results.find("units");
  if (units == o.results.end() || !units->is_array()) return out;
  for (const auto& u : *units)
    if (u.is_object() && u.contains("id") && u["id"].is_string()) out.push_back(u);
  return out;
}
}  // namespace

void UnitLog::adopt(const ChildOutcome& child) {
  for (auto& u : unit_entries(child)) units_.push_back(std::move(u));
  publish();
}

void UnitLog::publish() {
  note_results({{"units", units_}});
  checkpoint_outcome("__worker");
}

std::set<std::string> units_written(const ChildOutcome& o) {
  std::set<std::string> ids;
  for (const auto& u : unit_entries(o)) ids.insert(u["id"].get<std::string>());
  return ids;
}

namespace {

/// The units of one point in one `kprof run`; writes a result per unit (none for a unit left not
/// run after a hung kernel: a fresh process runs it).
void run_point(const WorkerRequest& req, const std::vector<Unit>& units, const EnvReport& env, const UnitPlace& place,
               UnitLog& log) {
  std::vector<Unit> runnable;
  RunRequest rr = req.base;
  rr.versions.clear();
  for (const auto& u : units) {
    if (req.before_unit) req.before_unit(u);
    try {
      KernelSpec spec = unit_spec(req, u);
      validate_spec(spec);
      rr.versions.push_back(spec);
      runnable.push_back(u);
    } catch (const Error& e) {
      log.add(req.plan.out, worker_result(u, place, UnitStatus::LoadError, one_line_summary(e.what())));
    }
  }
  if (runnable.empty()) return;
  rr.output_dir = join_path(join_path(req.plan.out, "runs"), runnable[0].key);
  rr.env = &env;
  FileLock lock(gpu_lock_path(gpu_lock_id(place, rr.versions[0].gpu)), say_waiting);
  RunOutcome o;
  std::string failed;
  try {
    o = run_workflow(rr);
  } catch (const Error& e) {
    failed = one_line_summary(e.what());
  }
  std::string blockers;
  for (const auto& b : env.blockers) blockers += (blockers.empty() ? "" : "; ") + b;
  for (size_t i = 0; i < runnable.size(); ++i) {
    const Unit& u = runnable[i];
    if (!failed.empty()) {
      log.add(req.plan.out, worker_result(u, place, UnitStatus::LoadError, failed));
      continue;
    }
    if (!o.env_ready || i >= o.rows.size()) {
      log.add(req.plan.out,
              worker_result(u, place, UnitStatus::NotRun,
                            "environment not ready: " + (blockers.empty() ? "see env_check.md" : blockers)));
      continue;
    }
    const VersionRow& row = o.rows[i];
    if (row.status == VersionStatus::NotRun && hard_exit_requested()) continue;  // a fresh process runs it
    UnitResult r = worker_result(u, place, unit_status_of(row, req.plan.ncu, build_failed(rr.versions[i])), "");
    r.row = row;
    r.row.name = u.version;
    if (r.status != UnitStatus::Ok)
      r.reason = !row.status_reason.empty() ? row.status_reason : !row.profile_reason.empty() ? row.profile_reason : "";
    log.add(req.plan.out, r);
  }
}

/// The units this worker runs: its shard (or the one unit asked for), without final results.
std::vector<Unit> my_units(const WorkerRequest& req) {
  std::vector<Unit> mine;
  if (!req.only.empty()) {
    for (const auto& u : req.plan.units)
      if (u.id() == req.only) mine.push_back(u);
    if (mine.empty()) throw usage_error("--unit " + req.only + " is not in " + req.units_path);
    return mine;
  }
  return shard_of(units_to_run(req.plan), req.shard, req.shards);
}

int run_in_process(const WorkerRequest& req) {
  std::vector<Unit> units = pending_units(req.plan.out, my_units(req));
  if (units.empty()) return 0;
  UnitLog log;
  EnvOptions eo;
  eo.gpu = req.base.versions.at(0).gpu;
  eo.timeout_s = req.base.env_timeout_s;
  // The environment probe runs ncu too (the counter probe): under the GPU's lock like the units.
  UnitPlace early;
  early.gpu_uuid = gpu_info(eo.gpu).uuid;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) early.gpu_visible = v;
  EnvReport env;
  {
    FileLock lock(gpu_lock_path(gpu_lock_id(early, eo.gpu)), say_waiting);
    env = assess_env(collect_env(eo));
  }
  UnitPlace place = unit_place(env);
  if (!env.ready) {  // no unit can run here: say so once, every unit not_run (a rerun elsewhere runs them)
    std::string blockers;
    for (const auto& b : env.blockers) blockers += (blockers.empty() ? "" : "; ") + b;
    std::string report = join_path(req.plan.out, "env_check.md");
    write_env_reports(env, report);
    print_error("the environment is not ready: " + blockers, "see " + report + " for each item and its fix");
    for (const auto& u : units) {
      if (req.before_unit) req.before_unit(u);
      log.add(req.plan.out, worker_result(u, place, UnitStatus::NotRun, "environment not ready: " + blockers));
    }
    return 1;
  }
  int code = 0;
  for (size_t i = 0; i < units.size();) {
    size_t j = i;
    while (j < units.size() && units[j].key == units[i].key) ++j;
    run_point(req, std::vector<Unit>(units.begin() + i, units.begin() + j), env, place, log);
    if (hard_exit_requested()) return kWorkerGpuLost;
    i = j;
  }
  for (const auto& u : units) {
    auto r = read_unit_result(req.plan.out, u);
    if (!r || r->status != UnitStatus::Ok) code = 1;
  }
  return code;
}

/// "exit 1", "killed by signal 6 (Aborted)", "timed out".
std::string how_it_ended(const ProcessResult& p) {
  if (p.term_signal) return fmt::format("killed by signal {} ({})", p.term_signal, strsignal(p.term_signal));
  if (p.not_found) return "could not be started: " + trim(p.err);
  return "exit " + std::to_string(p.exit_code);
}

/// The child worker (in process) for `only` ("" = the shard), its outcome document in `outcome`.
ProcessResult run_child(const WorkerRequest& req, const std::string& only, const std::string& outcome) {
  std::vector<std::string> argv = req.self_exe;
  argv.insert(argv.end(), {"__worker", "--units", req.units_path, "--shard",
                           fmt::format("{}/{}", req.shard, req.shards), "--in-process"});
  if (!only.empty()) argv.insert(argv.end(), {"--unit", only});
  ProcessOptions po;
  po.timeout_s = 0;
  po.env[kOutcomeFileVar] = outcome;
  po.on_line = [](const std::string& line, bool) { std::fprintf(stderr, "%s\n", line.c_str()); };
  std::remove(outcome.c_str());
  return run_process(argv, po);
}

/// The supervisor: one child for the shard; the units its outcome document does not name as
/// written (it died before them) run again one per child; a unit whose own child dies gets status
/// crash. What each child wrote is read from its outcome, never guessed from the result files.
int supervise(const WorkerRequest& req) {
  std::vector<Unit> units = pending_units(req.plan.out, my_units(req));
  if (units.empty()) return 0;
  UnitLog log;
  ScratchFile outcome_file("kprof-worker-outcome", ".json", "");
  const std::string outcome = outcome_file.path().empty()
                                  ? join_path(temp_root(), "kprof-worker-outcome" + unique_temp_suffix() + ".json")
                                  : outcome_file.path();
  ProcessResult first = run_child(req, req.only, outcome);
  ChildOutcome first_outcome = read_outcome(outcome);
  log.adopt(first_outcome);
  std::set<std::string> written = units_written(first_outcome);
  int code = first.exit_code == 0 ? 0 : 1;
  for (const auto& u : units) {
    if (written.count(u.id())) continue;
    print_progress(
        fmt::format("[{}] no result after the worker ended ({}): running it alone", u.id(), how_it_ended(first)));
    ProcessResult alone = run_child(req, u.id(), outcome);
    ChildOutcome alone_outcome = read_outcome(outcome);
    log.adopt(alone_outcome);
    if (units_written(alone_outcome).count(u.id())) continue;
    std::string tail = trim(alone.err);
    if (tail.size() > 300) tail = "..." + tail.substr(tail.size() - 300);
    UnitResult r = worker_result(u, UnitPlace{}, UnitStatus::Crash,
                                 "the worker process died in this unit (" + how_it_ended(alone) + ")" +
                                     (tail.empty() ? "" : ": " + one_line_summary(tail)));
    log.add(req.plan.out, r);
    code = 1;
  }
  std::remove(outcome.c_str());
  return code;
}

}  // namespace

UnitPlace unit_place(const EnvReport& env) {
  UnitPlace p;
  const EnvFacts& f = env.facts;
  p.host = f.host;
  p.gpu_name = f.gpu.name;
  p.gpu_uuid = f.gpu.uuid;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) p.gpu_visible = v;
  p.driver = f.gpu.driver_version;
  p.ncu_version = f.ncu.version;
  if (f.gpu.clocks) {
    p.sm_mhz = f.gpu.clocks->sm_mhz;
    p.mem_mhz = f.gpu.clocks->mem_mhz;
    p.sm_max_mhz = f.gpu.clocks->sm_max_mhz;
  }
  return p;
}

std::string gpu_lock_id(const UnitPlace& place, int gpu) {
  if (!place.gpu_uuid.empty()) return place.gpu_uuid;
  if (!place.gpu_visible.empty()) return "visible-" + place.gpu_visible;
  return "index-" + std::to_string(gpu);
}

int run_worker(const WorkerRequest& req) {
  if (req.base.versions.empty()) throw usage_error("the unit list's request names no kernel file");
  return req.in_process ? run_in_process(req) : supervise(req);
}

}  // namespace kprof
