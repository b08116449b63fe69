#include "flows/slurm.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <regex>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "flows/worker.hpp"

namespace kprof {
namespace {

std::string slurm_dir(const UnitPlan& plan) { return join_path(plan.out, "slurm"); }

/// Array task `k`'s outcome document (its worker's: the units it wrote), named by the script.
std::string task_outcome(const UnitPlan& plan, int k) {
  return join_path(slurm_dir(plan), fmt::format("task-{}.outcome.json", k));
}

/// The units each task's worker names as written in its outcome document so far.
std::set<std::string> units_written_by_tasks(const UnitPlan& plan, int tasks) {
  std::set<std::string> ids;
  for (int k = 0; k < tasks; ++k)
    for (const auto& id : units_written(read_outcome(task_outcome(plan, k)))) ids.insert(id);
  return ids;
}

/// A Slurm client command, at most `timeout_s` seconds.
ProcessResult slurm_cmd(const std::vector<std::string>& argv, double timeout_s) {
  ProcessOptions po;
  po.timeout_s = timeout_s;
  return run_process(argv, po);
}

/// The job's tasks still queued or running (squeue), by state: {"PENDING": 2, "RUNNING": 1}; empty
/// when the job has left the queue. nullopt when squeue fails.
std::optional<std::map<std::string, int>> queued(const std::string& job) {
  ProcessResult r = slurm_cmd({"squeue", "-h", "-r", "-j", job, "-o", "%T"}, 30);
  if (!r.ok()) {
    // squeue exits 1 with "Invalid job id specified" once the job is gone from the controller.
    if (r.combined().find("Invalid job id") != std::string::npos) return std::map<std::string, int>{};
    return std::nullopt;
  }
  std::map<std::string, int> states;
  for (const auto& line : split(r.out, '\n'))
    if (!trim(line).empty()) ++states[trim(line)];
  return states;
}

void wait_for_job(const UnitPlan& plan, const std::string& job, const SlurmOptions& opts, int tasks) {
  std::vector<Unit> run = units_to_run(plan);
  std::string last;
  int failures = 0;
  for (;;) {
    auto q = queued(job);
    if (!q) {
      if (++failures >= 5)
        throw check_failed("squeue fails for job " + job,
                           "check the Slurm controller; merge later by running the same command again");
    } else {
      failures = 0;
      std::string states;
      for (const auto& [s, n] : *q) states += fmt::format("{}{} {}", states.empty() ? "" : ", ", n, to_lower(s));
      std::string line =
          fmt::format("slurm job {}: {} of {} unit(s) have results; tasks: {}", job,
                      units_written_by_tasks(plan, tasks).size(), run.size(), states.empty() ? "done" : states);
      if (line != last) print_progress(line);
      last = line;
      if (q->empty()) return;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(opts.poll_s));
  }
}

std::map<int, std::string> task_states(const std::string& job) {
  ProcessResult r = slurm_cmd({"sacct", "-n", "-P", "-X", "-j", job, "--format=JobID,State"}, 30);
  return r.ok() ? parse_sacct_states(r.out, job) : std::map<int, std::string>{};
}

/// Results for the units the tasks left without one.
void write_missing(const UnitPlan& plan, const std::string& job, int tasks, const SlurmOptions& opts) {
  std::map<int, std::string> states = task_states(job);
  std::vector<Unit> run = units_to_run(plan);
  for (int k = 0; k < tasks; ++k) {
    std::string state = states.count(k) ? states[k] : "";
    std::string base = join_path(slurm_dir(plan), fmt::format("task-{}", k));
    bool term = path_exists(base + ".term");  // this job's: an earlier job's were removed at submission
    ChildOutcome outcome = read_outcome(task_outcome(plan, k));
    if (state.empty() && outcome.found && outcome.exit_code >= 0) state = "COMPLETED";  // its worker ended
    std::set<std::string> written = units_written(outcome);
    for (const auto& u : shard_of(run, k, tasks)) {
      if (written.count(u.id())) continue;
      auto [status, reason] = missing_unit_status(state, term, opts.time);
      write_unit_result(plan.out, placeholder_result(u, status, fmt::format("Slurm task {}_{}: {}", job, k, reason)));
    }
  }
}

}  // namespace

int slurm_task_count(size_t run_units, size_t versions, const SlurmOptions& opts) {
  size_t per = opts.units_per_task > 0 ? static_cast<size_t>(opts.units_per_task) : std::max<size_t>(1, versions);
  return static_cast<int>(std::max<size_t>(1, (run_units + per - 1) / per));
}

std::string sbatch_script(const UnitPlan& plan, const std::string& units_path, const SlurmOptions& opts, int tasks,
                          const std::vector<std::string>& kprof_exe) {
  const std::string dir = join_path(plan.out, "slurm");
  const bool gpu = opts.gres != "none" && !opts.gres.empty();
  std::string s =
      "#!/bin/bash\n# Written by kprof run --slurm: each array task runs one shard of " + units_path + ".\n";
  s += "#SBATCH --job-name=kprof\n";
  s += fmt::format("#SBATCH --array=0-{}%{}\n", tasks - 1, std::max(1, opts.max_parallel));
  s += "#SBATCH --output=" + dir + "/task-%a.log\n";
  s += "#SBATCH --chdir=" + plan.cwd + "\n";
  s += "#SBATCH --ntasks=1\n";
  if (!opts.partition.empty()) s += "#SBATCH --partition=" + opts.partition + "\n";
  if (gpu) s += "#SBATCH --gres=" + opts.gres + "\n";
  if (!opts.time.empty()) s += "#SBATCH --time=" + opts.time + "\n";
  s += "\nstate=" + shell_quote(dir) + "/task-$SLURM_ARRAY_TASK_ID\n";
  s += "rm -f \"$state.exit\" \"$state.term\" \"$state.outcome.json\"\n";
  s += "export KPROF_OUTCOME_FILE=\"$state.outcome.json\"  # the worker's outcome: the units it wrote\n";
  std::vector<std::string> worker = kprof_exe;
  worker.insert(worker.end(), {"__worker", "--units", units_path});
  s += shell_join(worker) + " --shard \"$SLURM_ARRAY_TASK_ID/" + std::to_string(tasks) + "\"" +
       (gpu ? " --one-gpu" : "") + " &\n";
  s += "worker=$!\n";
  s += "trap 'echo \"SIGTERM (time limit or scancel)\" > \"$state.term\"; kill -TERM $worker 2>/dev/null; wait "
       "$worker; exit 143' TERM\n";
  s += "wait $worker\nrc=$?\necho $rc > \"$state.exit\"\nexit $rc\n";
  return s;
}

std::string parse_sbatch_job_id(const std::string& out) {
  static const std::regex id_re(R"((^|\n)\s*(\d+)(;[^\n]*)?\s*($|\n))");
  std::smatch m;
  if (std::regex_search(out, m, id_re)) return m[2];
  throw check_failed(
      "sbatch did not submit the job: " + (trim(out).empty() ? std::string("no output") : one_line_summary(trim(out))),
      "check --partition, --gres and --time against the cluster (sinfo), then run the same command again");
}

std::map<int, std::string> parse_sacct_states(const std::string& out, const std::string& job_id) {
  std::map<int, std::string> states;
  const std::regex task_re("^" + job_id + R"(_(\d+)\|(\S+))");
  for (const auto& line : split(out, '\n')) {
    std::smatch m;
    std::string l = trim(line);
    if (std::regex_search(l, m, task_re)) states[std::stoi(m[1])] = m[2];
  }
  return states;
}

std::pair<UnitStatus, std::string> missing_unit_status(const std::string& state, bool term_file,
                                                       const std::string& time) {
  std::string limit = time.empty() ? "the partition's time limit" : "--time " + time;
  if (state == "TIMEOUT" || (term_file && (state.empty() || state == "COMPLETED")))
    return {UnitStatus::Timeout, "the task was stopped at " + limit + (state == "TIMEOUT" ? "" : " (or cancelled)") +
                                     " before this unit had a result"};
  if (state.empty() || state == "PENDING" || state == "RUNNING" || state == "REQUEUED")
    return {UnitStatus::NotRun, "the task did not run it" + (state.empty() ? std::string() : " (" + state + ")")};
  return {UnitStatus::Crash, "the task ended " + state + " without a result for this unit (see its log in slurm/)"};
}

bool slurm_job_queued(const std::string& out) {
  std::string job_file = join_path(join_path(out, "slurm"), "job.json");
  if (!path_exists(job_file) || find_on_path("squeue").empty()) return false;
  nlohmann::json j = nlohmann::json::parse(read_file(job_file), nullptr, false);
  if (!j.is_object() || !j.contains("job") || !j["job"].is_string()) return false;
  auto q = queued(j["job"].get<std::string>());
  return q && !q->empty();
}

bool run_slurm(const UnitPlan& plan, const std::string& units_path, const SlurmOptions& opts,
               const std::vector<std::string>& kprof_exe) {
  const std::string dir = slurm_dir(plan), job_file = join_path(dir, "job.json");
  make_dirs(dir);
  std::string job;
  int tasks = 0;
  if (slurm_job_queued(plan.out)) {  // a job of an earlier call: wait for it, do not submit twice
    nlohmann::json j = nlohmann::json::parse(read_file(job_file));
    job = j["job"].get<std::string>();
    tasks = j.value("tasks", 1);
    print_progress("slurm job " + job + " of an earlier call is still queued: waiting for it instead of submitting");
  }
  if (job.empty()) {
    if (plan.run_ids.empty()) return true;
    if (find_on_path("sbatch").empty())
      throw usage_error("--slurm: sbatch is not on PATH",
                        "run on a Slurm login node, or drop --slurm to run on this host's GPUs");
    tasks = slurm_task_count(plan.run_ids.size(), 1 + plan.units.back().version_index, opts);
    write_file_atomic(join_path(dir, "kprof.sbatch"), sbatch_script(plan, units_path, opts, tasks, kprof_exe));
    for (int k = 0; k < tasks; ++k)  // an earlier job's task files: what is there after the wait is this job's
      for (const std::string& f : {task_outcome(plan, k), join_path(dir, fmt::format("task-{}.term", k)),
                                   join_path(dir, fmt::format("task-{}.exit", k))})
        std::remove(f.c_str());
    const double since =  // job.json's record of when it was submitted
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() - 1;
    ProcessResult r = slurm_cmd({"sbatch", "--parsable", join_path(dir, "kprof.sbatch")}, 60);
    job = parse_sbatch_job_id(r.ok() ? r.out : r.combined());
    write_file_atomic(job_file, nlohmann::json{{"job", job}, {"tasks", tasks}, {"submitted", since}}.dump() + "\n");
    print_progress(fmt::format("submitted slurm job {}: {} array task(s) over {} unit(s), at most {} at once", job,
                               tasks, plan.run_ids.size(), opts.max_parallel));
  }
  if (!opts.wait) {
    std::printf(
        "slurm job %s submitted; when it has ended, run the same command again to merge (only units without a "
        "result run again), or `kprof compare %s ...`\n",
        job.c_str(), plan.out.c_str());
    return false;
  }
  wait_for_job(plan, job, opts, tasks);
  write_missing(plan, job, tasks, opts);
  return true;
}

}  // namespace kprof
