#include "pipeline/run_flow.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "analysis/derived.hpp"
#include "core/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "env/env_check.hpp"
#include "env/env_report.hpp"
#include "env/readiness.hpp"
#include "pipeline/guarded_call.hpp"
#include "pipeline/load.hpp"
#include "pipeline/reference_loader.hpp"
#include "python/reference.hpp"
#include "report/correctness_report.hpp"
#include "report/roofline_chart.hpp"

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

/// "[v1] check: PASS (2.3 s)".
void step_line(const std::string& version, const std::string& step, const std::string& what, Clock::time_point t0) {
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  print_progress(fmt::format("[{}] {}: {} ({:.1f} s)", version, step, what, s));
}

void fill_ncu_columns(VersionRow& row, const ProfileOutcome& p) {
  if (!p.classified) {
    row.cls = "not classified: " + p.failure;
    return;
  }
  const auto& v = p.analysis->verdict;
  row.cls = bottleneck_name(v.cls());
  if (v.leading < 0) return;
  const auto& k = p.analysis->table.kernels[static_cast<size_t>(v.leading)];
  auto sol = read_sol(k);
  row.sm_sol = sol.sm;
  row.mem_sol = sol.mem;
  row.achieved_occupancy = k.number("sm__warps_active.avg.pct_of_peak_sustained_active");
  auto stalls = ranked_stalls(k);
  if (!stalls.empty()) row.leading_stall = fmt::format("{} ({:.0f}%)", stalls[0].reason, stalls[0].share_pct);
  if (v.bound && v.bound->bound_s) {
    row.pct_of_bound = v.bound->pct_of_bound;
    row.bound_ms = *v.bound->bound_s * 1e3;
    row.max_speedup = v.bound->max_speedup;
    row.bound_basis = v.bound->binding;
  }
  const auto& lead = v.kernels[static_cast<size_t>(v.leading)];
  // A finding capped to (nearly) nothing by the headroom is no lead: the version is at its bound.
  if (!lead.findings.empty() && lead.findings[0].ranked_pct() >= 0.5)
    row.top_finding = fmt::format("{} ({:.1f}%)", lead.findings[0].title, lead.findings[0].ranked_pct());
}

/// roofline.svg of `kprof run`: each version's leading kernel with its bound. Returns a note
/// when it is not written ("" when it is).
std::string write_versions_roofline(const std::string& dir, const std::vector<std::pair<std::string, NcuAnalysis>>& done) {
  std::vector<RooflineEntry> entries;
  const Ceilings* ceilings = nullptr;
  for (const auto& [name, a] : done) {
    const CallVerdict& v = a.verdict;
    if (v.leading < 0 || !v.ceilings) continue;
    if (!ceilings) ceilings = &*v.ceilings;
    entries.push_back({name, &a.table.kernels[static_cast<size_t>(v.leading)], v.work, v.bound});
  }
  if (!ceilings) return "roofline not drawn: no version was classified";
  return write_roofline(dir, roofline_spec(entries, *ceilings, "kprof roofline: the versions' leading kernels"));
}

/// "A: f32 x 1024, C: f32 x 1024" from {"A", "f32 x 1024"}, {"C", "f32 x 1024"}.
std::string buffer_list(const std::vector<std::pair<std::string, std::string>>& buffers) {
  std::vector<std::string> parts;
  for (const auto& [name, what] : buffers) parts.push_back(name + ": " + what);
  return fmt::format("{}", fmt::join(parts, ", "));
}

/// Fills `row` for a version whose `step` ("load", "check" or "profile") threw `e`.
void record_version_error(VersionRow& row, const std::string& step, const Error& e) {
  if (step == "profile") {
    row.cls = "not classified: " + one_line_summary(e.what());
    return;
  }
  row.correct = false;
  row.correctness = "ERROR (" + step + "): " + one_line_summary(e.what());
  row.cls = "not profiled (" + step + " failed)";
}

/// The row of version `j`, not run because of `why` (an earlier version hung the GPU, ref.py
/// does not load).
VersionRow not_run_row(const RunRequest& req, const std::vector<std::string>& names, size_t j,
                       const std::string& why) {
  VersionRow r;
  r.name = names[j];
  r.kernel = req.versions[j].kernel;
  r.folder = join_path(req.output_dir, names[j]);
  r.correctness = "not run: " + why;
  r.cls = "not profiled";
  return r;
}

std::string first_failure(const CheckResult& r) {
  if (r.fault) return r.fault->message;
  for (const auto& t : r.trials) {
    for (const auto& o : t.outputs)
      if (!o.pass) return o.name + ": " + o.reason;
    for (const auto& g : t.guards) return "write " + std::string(g.before ? "before" : "past") + " buffer " + g.buffer;
    for (const auto& m : t.modified_inputs)
      if (m.fails) return "const input " + m.name + " modified";
  }
  return "failed";
}

}  // namespace

std::vector<std::string> version_folder_names(const std::vector<KernelSpec>& versions) {
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const auto& v : versions) {
    std::string stem = file_stem(v.kernel);
    int n = ++seen[stem];
    names.push_back(n == 1 ? stem : fmt::format("{}-{}", stem, n));
  }
  return names;
}

RunOutcome run_workflow(const RunRequest& req) {
  RunOutcome out;
  if (req.versions.empty()) throw usage_error("kprof run needs at least one kernel file");
  const KernelSpec& first = req.versions.front();
  for (const auto& v : req.versions) validate_spec(v);  // input errors first: exit 2 on any machine
  check_reference_source(req.ref);
  make_dirs(req.output_dir);

  // 1. Environment, once; stop before any kernel runs when a required item fails.
  auto t_env = Clock::now();
  EnvOptions eo;
  eo.gpu = first.gpu;
  eo.timeout_s = req.env_timeout_s;
  EnvReport env = assess_env(collect_env(eo));
  write_env_reports(env, join_path(req.output_dir, "env_check.md"));
  out.env_ready = env.ready;
  step_line("env", "environment", env.ready ? "ready" : "NOT ready", t_env);
  if (!env.ready) {
    for (const auto& b : env.blockers) print_error(b);
    print_error("a required environment item failed: no kernel was run",
                "see " + join_path(req.output_dir, "env_check.md") + " for each item and its fix");
    out.exit_code = 1;
    return out;
  }

  select_gpu(first.gpu);
  BackgroundReference reference(req.ref, first.gpu);
  auto names = version_folder_names(req.versions);
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<std::pair<std::string, std::string>> first_buffers;  ///< the first loaded version's
  std::vector<std::pair<std::string, NcuAnalysis>> profiled;        ///< classified versions, for the chart

  // One version: load, check, and when correct, profile. Fills `row`; `step` and `t0` follow the
  // step in progress. Throws Error (the caller records it on the row and goes on).
  auto run_version = [&](const KernelSpec& spec, VersionRow& row, std::string& step, Clock::time_point& t0) {
    step = "load";
    auto inst = load_kernel(spec, /*extra_copies=*/3.0);
    step = "check";
    auto kheader = kernel_header_rows(spec, *inst);
    std::vector<std::pair<std::string, std::string>> buffers;  // name, "f32 x 1024"
    for (const auto& b : inst->buffers())
      buffers.push_back({b.name, fmt::format("{} x {}", dtype_name(b.dtype), b.count)});
    if (header.empty()) {
      header = {{"GPU", gpu_description(spec.gpu)},
                {"Dimensions", spec.dims.to_string().empty() ? "(none)" : spec.dims.to_string()},
                {"Seed", std::to_string(spec.seed)},
                {"Reference", req.ref}};
      for (const auto& [name, what] : buffers) header.push_back({"Buffer " + name, what});
      first_buffers = buffers;
    } else if (buffers != first_buffers) {
      // Same options for every version, so only a different solve signature gets here.
      row.note = "its buffers differ from the first version's (" + buffer_list(buffers) + " against " +
                 buffer_list(first_buffers) + "): the times compare different work";
      print_progress(fmt::format("[{}] note: {}", row.name, row.note));
    }
    CheckResult cr = run_check(*inst, [&]() -> ReferenceRunner& { return reference.get(); }, req.check);
    write_correctness_reports(row.folder, cr, kernel_header_rows(spec, *inst, req.ref));
    row.correct = cr.pass;
    row.correctness = cr.pass ? "PASS" : "FAIL: " + first_failure(cr);
    step_line(row.name, "check", cr.pass ? "PASS" : row.correctness, t0);
    if (!cr.pass || hard_exit_requested()) {
      row.cls = "not profiled (correctness failed)";
      out.exit_code = std::max(out.exit_code, 1);
      return;
    }
    step = "profile";
    t0 = Clock::now();
    ProfileSettings ps = req.profile;
    ps.ref = req.ref;
    inst->prepare(spec.seed);
    ProfileOutcome p = run_profile(*inst, spec, ps, row.folder, kheader);
    row.profiled = true;
    row.call_ms = p.timing.call.median;
    row.call_std_ms = p.timing.call.stddev;
    if (p.timing.kernel.available) {
      row.kernel_ms = p.timing.kernel.summary.sum.median;
      row.kernel_std_ms = p.timing.kernel.summary.sum.stddev;
    }
    fill_ncu_columns(row, p);
    if (p.classified) profiled.emplace_back(row.name, *p.analysis);
    if (!p.classified && ps.run_ncu) out.exit_code = std::max(out.exit_code, 1);
    step_line(row.name, "profile",
              row.pct_of_bound ? fmt::format("{}, at {:.1f}% of the bound (at most {:.2f}x faster)", row.cls,
                                             *row.pct_of_bound, row.max_speedup.value_or(1.0))
                               : row.cls,
              t0);
  };

  for (size_t i = 0; i < req.versions.size(); ++i) {
    VersionRow row;
    row.name = names[i];
    row.kernel = req.versions[i].kernel;
    row.folder = join_path(req.output_dir, names[i]);
    auto t0 = Clock::now();
    std::string step;
    try {
      run_version(req.versions[i], row, step, t0);
    } catch (const Error& e) {
      // This version failed outside its checks (it does not build or load, its profile could not
      // run, ...): its row says why and the other versions go on.
      record_version_error(row, step, e);
      step_line(row.name, step, "ERROR", t0);
      print_error(fmt::format("[{}] {}", row.name, e.what()), e.hint());
      out.exit_code = std::max(out.exit_code, static_cast<int>(e.code()));
    }
    out.rows.push_back(row);
    if (hard_exit_requested()) {  // a hung kernel or a lost CUDA context: nothing more can run
      for (size_t j = i + 1; j < req.versions.size(); ++j)
        out.rows.push_back(not_run_row(req, names, j, row.name + " left the GPU unusable (hung kernel or lost context)"));
      break;
    }
    if (reference.load_failed()) {  // the same ref.py for every version: none can be checked
      for (size_t j = i + 1; j < req.versions.size(); ++j)
        out.rows.push_back(not_run_row(req, names, j, "ref.py could not be loaded (see " + row.name + ")"));
      break;
    }
  }
  // Compare on GPU kernel time when every profiled version has it, else on call time.
  bool all_kernel = true;
  for (const auto& r : out.rows)
    if (r.profiled && !r.kernel_ms) all_kernel = false;
  std::string basis = all_kernel ? "kernel time per call (CUPTI), median over the timed calls"
                                 : "call time (CUDA events), median over the timed calls";
  for (auto& r : out.rows) {
    if (!r.profiled) continue;
    r.time_ms = all_kernel ? r.kernel_ms : r.call_ms;
    r.spread_ms = all_kernel ? r.kernel_std_ms : r.call_std_ms;
  }
  out.comparison = compare_versions(out.rows);
  write_file_atomic(join_path(req.output_dir, "comparison.md"), comparison_markdown(out.rows, out.comparison, header, basis));
  nlohmann::json cj = comparison_json(out.rows, out.comparison, header, basis);
  if (req.profile.roofline && req.profile.run_ncu) {
    std::string note = write_versions_roofline(req.output_dir, profiled);
    cj["roofline"] = note.empty() ? nlohmann::json(join_path(req.output_dir, "roofline.svg")) : nlohmann::json(note);
    if (!note.empty()) print_warning(note);
  }
  write_file_atomic(join_path(req.output_dir, "comparison.json"), cj.dump(2) + "\n");
  return out;
}

}  // namespace kprof
