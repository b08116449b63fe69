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

/// The units of one point in one `kprof run`; writes a result per unit (none for a unit left not
/// run after a hung kernel: a fresh process runs it).
void run_point(const WorkerRequest& req, const std::vector<Unit>& units, const EnvReport& env, const UnitPlace& place) {
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
      write_unit_result(req.plan.out, worker_result(u, place, UnitStatus::LoadError, one_line_summary(e.what())));
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
      write_unit_result(req.plan.out, worker_result(u, place, UnitStatus::LoadError, failed));
      continue;
    }
    if (!o.env_ready || i >= o.rows.size()) {
      write_unit_result(req.plan.out,
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
    write_unit_result(req.plan.out, r);
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
      write_unit_result(req.plan.out,
                        worker_result(u, place, UnitStatus::NotRun, "environment not ready: " + blockers));
    }
    return 1;
  }
  int code = 0;
  for (size_t i = 0; i < units.size();) {
    size_t j = i;
    while (j < units.size() && units[j].key == units[i].key) ++j;
    run_point(req, std::vector<Unit>(units.begin() + i, units.begin() + j), env, place);
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

ProcessResult run_child(const WorkerRequest& req, const std::string& only) {
  std::vector<std::string> argv = req.self_exe;
  argv.insert(argv.end(), {"__worker", "--units", req.units_path, "--shard",
                           fmt::format("{}/{}", req.shard, req.shards), "--in-process"});
  if (!only.empty()) argv.insert(argv.end(), {"--unit", only});
  ProcessOptions po;
  po.timeout_s = 0;
  po.on_line = [](const std::string& line, bool) { std::fprintf(stderr, "%s\n", line.c_str()); };
  return run_process(argv, po);
}

bool written_since(const std::string& out, const Unit& u, double t0) {
  return file_mtime(unit_result_path(out, u)) >= t0;
}

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

/// The supervisor: one child for the shard; the units it left without a result run again one per
/// child; a unit whose own child dies gets status crash.
int supervise(const WorkerRequest& req) {
  std::vector<Unit> units = pending_units(req.plan.out, my_units(req));
  if (units.empty()) return 0;
  double t0 = now_s() - 1;  // file times have a coarse resolution on some file systems
  ProcessResult first = run_child(req, req.only);
  int code = first.exit_code == 0 ? 0 : 1;
  for (const auto& u : units) {
    if (written_since(req.plan.out, u, t0)) continue;
    print_progress(
        fmt::format("[{}] no result after the worker ended ({}): running it alone", u.id(), how_it_ended(first)));
    double t1 = now_s() - 1;
    ProcessResult alone = run_child(req, u.id());
    if (written_since(req.plan.out, u, t1)) continue;
    std::string tail = trim(alone.err);
    if (tail.size() > 300) tail = "..." + tail.substr(tail.size() - 300);
    UnitResult r = worker_result(u, UnitPlace{}, UnitStatus::Crash,
                                 "the worker process died in this unit (" + how_it_ended(alone) + ")" +
                                     (tail.empty() ? "" : ": " + one_line_summary(tail)));
    write_unit_result(req.plan.out, r);
    code = 1;
  }
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
