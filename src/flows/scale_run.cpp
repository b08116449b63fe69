#include "flows/scale_run.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include "core/outcome.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "flows/slurm.hpp"
#include "flows/worker.hpp"
#include "kernel/load.hpp"
#include "python/plot.hpp"
#include "report/comparison.hpp"
#include "report/units_report.hpp"
#include "stages/verify/reference.hpp"
#include "core/settings.hpp"

namespace kprof {
namespace {

std::string cwd_now() {
  char buf[4096];
  return ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string(".");
}

/// KPROF_TMPDIR_PER_GPU=1: each GPU's worker gets its own TMPDIR (docs/SCALE.md).
bool tmpdir_per_gpu() { return settings().tmpdir_per_gpu; }

/// One supervising worker per GPU (or one without --gpus), in parallel; a unit of the run list
/// left without a result gets a crash result naming how its worker ended.
void run_local(const UnitPlan& plan, const std::string& units_path, const ScaleRequest& req) {
  const size_t n = std::max<size_t>(1, req.gpus.size());
  std::vector<ProcessResult> ended(n);
  std::vector<std::string> outcomes(n);  // each worker's outcome document: the units it wrote
  std::mutex print_mu;
  std::vector<std::thread> threads;
  for (size_t k = 0; k < n; ++k)
    threads.emplace_back([&, k] {
      std::vector<std::string> argv = req.self_exe;
      argv.insert(argv.end(), {"__worker", "--units", units_path, "--shard", fmt::format("{}/{}", k, n)});
      ProcessOptions po;
      po.timeout_s = 0;
      outcomes[k] = join_path(temp_root(), fmt::format("kprof-worker{}-{}-of-{}.json", unique_temp_suffix(), k, n));
      std::remove(outcomes[k].c_str());
      po.env[kOutcomeFileVar] = outcomes[k];
      std::string tag = req.gpus.empty() ? "" : "[gpu " + req.gpus[k] + "] ";
      if (!req.gpus.empty()) {
        po.env["CUDA_VISIBLE_DEVICES"] = req.gpus[k];
        argv.push_back("--one-gpu");
        // ncu keeps its inter-process lock in TMPDIR: one TMPDIR per GPU lets GPUs profile at once (whether
        // the driver allows it is measured by bench/bench_scale.py); kprof's own GPU lock still
        // keeps two workers of one GPU apart.
        if (tmpdir_per_gpu()) {
          std::string dir = "/tmp/kprof-tmp-gpu-" + req.gpus[k];
          make_dirs(dir);
          po.env["TMPDIR"] = dir;
        }
      }
      po.on_line = [&, tag](const std::string& line, bool) {
        std::lock_guard<std::mutex> lock(print_mu);
        std::fprintf(stderr, "%s%s\n", tag.c_str(), line.c_str());
      };
      ended[k] = run_process(argv, po);
    });
  for (auto& t : threads) t.join();
  std::vector<Unit> run = units_to_run(plan);
  for (size_t k = 0; k < n; ++k) {
    std::set<std::string> written = units_written(read_outcome(outcomes[k]));
    std::remove(outcomes[k].c_str());
    for (const auto& u : shard_of(run, static_cast<int>(k), static_cast<int>(n))) {
      if (written.count(u.id())) continue;
      const ProcessResult& p = ended[k];
      std::string how =
          p.term_signal ? "signal " + std::to_string(p.term_signal) : "exit " + std::to_string(p.exit_code);
      write_unit_result(
          plan.out, placeholder_result(u, UnitStatus::Crash, "its worker ended (" + how + ") without a result for it"));
    }
  }
}

/// The terminal summary: one line per unit.
std::string summary_text(const MergedUnits& m) {
  std::vector<std::vector<std::string>> t;
  for (const auto& mp : m.points)
    for (size_t i = 0; i < mp.point.units.size(); ++i) {
      const UnitResult& u = mp.point.units[i];
      const VersionRow& r = u.row;
      std::string mark = mp.comparison[i].fastest ? "*" : mp.comparison[i].tied_with_fastest ? "=" : "";
      t.push_back({u.unit.key, u.unit.version + mark, unit_status_id(u.status),
                   r.time_ms ? fmt_duration_ms(*r.time_ms) : "n/a", class_text(r),
                   r.pct_of_bound ? fmt::format("{:.1f}%", *r.pct_of_bound) : "n/a", unit_gpu_text(u.place)});
    }
  return markdown_table({"Dimensions", "Version", "Status", "Median", "Class", "% of bound", "GPU"}, t);
}

}  // namespace

std::vector<std::string> parse_gpu_list(const std::string& text, int count) {
  const char* hint = "give --gpus all, or GPU indices / UUIDs separated by commas: --gpus 0,1";
  std::string t = trim(text);
  std::vector<std::string> out;
  if (t == "all") {
    if (count <= 0)
      throw check_failed("--gpus all: no GPU is visible", "run on a machine with an NVIDIA GPU and driver");
    for (int i = 0; i < count; ++i) out.push_back(std::to_string(i));
    return out;
  }
  for (const auto& w : split(t, ',')) {
    std::string g = trim(w);
    bool index = !g.empty() && g.find_first_not_of("0123456789") == std::string::npos;
    if (!index && g.rfind("GPU-", 0) != 0 && g.rfind("MIG-", 0) != 0)
      throw usage_error("--gpus " + text + ": '" + g + "' is neither a GPU index nor a UUID", hint);
    out.push_back(g);
  }
  if (out.empty()) throw usage_error("--gpus is empty", hint);
  return out;
}

MergedUnits write_merged_reports(const UnitPlan& plan) {
  std::vector<UnitResult> results;
  for (const auto& u : plan.units)
    if (auto r = read_unit_result(plan.out, u)) results.push_back(*r);
  MergedUnits m = merge_unit_results(plan.units, results);
  std::set<std::string> gpus;
  for (const auto& r : results)
    if (!r.place.gpu_name.empty() || !r.place.gpu_uuid.empty()) gpus.insert(unit_gpu_text(r.place));
  std::string gpu_list;
  for (const auto& g : gpus) gpu_list += (gpu_list.empty() ? "" : ", ") + g;
  std::vector<std::pair<std::string, std::string>> header = {
      {"GPUs", gpu_list.empty() ? "unknown (no unit ran on a GPU)" : gpu_list},
      {"Units", join_path(plan.out, "units.json")}};
  std::string chart;
  if (!plan.axes.empty()) {
    nlohmann::json spec = sweep_chart_spec(m, plan.axes);
    if (spec["series"].empty()) {
      chart = "";
    } else if (std::string why = render_sweep_chart(json_text(spec, -1), join_path(plan.out, "sweep.svg"),
                                                    join_path(plan.out, "sweep.png"));
               why.empty()) {
      chart = "sweep.svg";
    } else {
      print_warning("sweep chart not drawn: " + why);
    }
  }
  write_file_atomic(join_path(plan.out, "comparison.md"), units_markdown(m, plan.axes, header, chart));
  nlohmann::json j = units_json(m, plan.axes, header);
  j["chart"] = chart.empty() ? nlohmann::json(nullptr) : nlohmann::json(join_path(plan.out, chart));
  const std::string text = json_text(j) + "\n";
  write_file_atomic(join_path(plan.out, "comparison.json"), text);
  note_report(join_path(plan.out, "comparison.json"), text);
  return m;
}

int run_scaled(const ScaleRequest& req) {
  const RunRequest& run = req.run;
  if (run.versions.empty()) throw usage_error("kprof run needs at least one kernel file");
  std::vector<SweepPoint> grid = sweep_grid(req.axes);
  for (const auto& v : run.versions) {  // input errors first, at the first point: exit 2 before anything runs
    KernelSpec s = v;
    s.dims = dims_at(v.dims, grid.front());
    validate_spec(s);
  }
  check_reference_source(run.ref);
  UnitPlan plan;
  plan.units = make_units(run.versions, grid);
  plan.out = absolute_path(run.output_dir);
  make_dirs(plan.out);
  for (const auto& u : pending_units(plan.out, plan.units)) plan.run_ids.push_back(u.id());
  plan.request = req.unit_request;
  plan.cwd = cwd_now();
  for (const auto& a : req.axes) plan.axes.push_back(a.name);
  plan.ncu = run.profile.run_ncu;
  std::string units_path = join_path(plan.out, "units.json");
  if (req.slurm.enabled && slurm_job_queued(plan.out))
    plan = read_unit_plan(units_path);  // its tasks read it
  else
    write_unit_plan(plan, units_path);
  print_progress(fmt::format("{} unit(s) ({} version(s) x {} size(s)): {} to run, {} kept from an earlier run",
                             plan.units.size(), run.versions.size(), grid.size(), plan.run_ids.size(),
                             plan.units.size() - plan.run_ids.size()));
  if (req.slurm.enabled) {
    if (!run_slurm(plan, units_path, req.slurm, req.self_exe)) return 0;  // --no-wait
  } else if (!plan.run_ids.empty()) {
    run_local(plan, units_path, req);
  }
  MergedUnits m = write_merged_reports(plan);
  for (const auto& w : m.warnings) print_warning(w);
  std::printf("\n%s\n", styled("Summary", Style::Bold).c_str());
  std::fputs(summary_text(m).c_str(), stdout);
  std::printf("(* fastest correct version of its size, = as fast within noise)  %zu of %zu unit(s) ok  report: %s\n",
              m.ok, m.total, join_path(plan.out, "comparison.md").c_str());
  return m.ok == m.total && m.total == plan.units.size() ? 0 : 1;
}

}  // namespace kprof
