#include "flows/ncu_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/tools.hpp"
#include "flows/assess_context.hpp"
#include "kernel/load.hpp"
#include "python/chart_pool.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/ncu/session.hpp"
#include "stages/ncu/session_probe.hpp"

namespace kprof {
namespace {

using Clock = std::chrono::steady_clock;

/// Runs `fn` and adds its seconds to `p.ncu_step_s`.
template <typename Fn>
void timed(PendingProfile& p, Fn fn) {
  auto t0 = Clock::now();
  fn();
  p.ncu_step_s += std::chrono::duration<double>(Clock::now() - t0).count();
}

/// What the one session produced.
struct SessionRun {
  NcuRunResult ncu;
  MetricTable table;          ///< its rows (empty when it wrote none)
  std::optional<NcuRep> rep;  ///< read through ncu_report (source, rules, NVTX)
  SharedReport shared;        ///< points into `rep`
  SessionSplit split;
};

/// Reads the session's report at `path` through ncu_report once: NVTX ranges, and the source
/// counters and rule results when the settings collect them.
void read_session_report(SessionRun& run, const ProfileSettings& s, const std::string& path) {
  auto start = Clock::now();
  NcuRepReadOptions ro;
  ro.metrics = true;  // the launches' metrics too: no CSV export is needed (NcuRunOptions::read_report)
  ro.source = s.source;
  ro.sass = false;  // read for the instructions the reports show (hot_lines_of_report)
  ro.rules = s.metric_set != "kprof";
  ro.nvtx = true;
  run.shared.why_not.clear();
  try {
    run.rep = try_read_ncu_rep(path, ro, &run.shared.why_not);
  } catch (const Error& e) {
    run.shared.why_not = e.what();
  }
  if (run.rep) run.shared.rep = &*run.rep;
  run.shared.read_s = std::chrono::duration<double>(Clock::now() - start).count();
}

/// Runs ncu on `kprof __session PLAN` for `versions` (indices into `pending`); reads its report
/// (read_session_report), which gives its metrics too: ncu exports it to CSV only when that read fails.
NcuRunResult run_session_ncu(const std::vector<PendingProfile>& pending, const std::vector<size_t>& versions,
                             const ProfileSettings& s, const std::string& run_dir, SessionRun& run,
                             StandbySession* standby, NcuReportPrewarm& warm, const std::function<bool()>& go_on) {
  std::vector<SessionPlanEntry> plan;
  for (size_t i : versions) plan.push_back({pending[i].name, runner_request(pending[i].spec, pending[i].out.timing)});
  run.shared.why_not = "ncu wrote no report";
  double timeout_s = s.ncu_timeout_s * static_cast<double>(versions.size());  // each version's own limit, summed
  auto read = [&run, &s, &warm](const std::string& path) {
    warm.wait();
    read_session_report(run, s, path);
    return run.rep.has_value();
  };
  NcuRunResult r;
  if (standby) {
    if (s.show_progress)
      print_progress(
          fmt::format("ncu: releasing the session started in standby for {} versions, one call each in "
                      "its NVTX range (set '{}', --clock-control none)",
                      versions.size(), s.metric_set));
    r = standby->release(plan, timeout_s, read, go_on);
    if (r.stopped) return r;
  } else {
    const std::string plan_path = join_path(run_dir, "ncu_session.json");
    write_file_atomic(plan_path, session_plan_json(plan).dump(2) + "\n");
    NcuRunOptions no = one_session_options(pending[versions.front()].spec, s, run_dir, {"__session", plan_path});
    no.timeout_s = timeout_s;
    no.read_report = read;
    if (s.show_progress)
      print_progress(
          fmt::format("ncu: one session for {} versions, one call each in its NVTX range ({} metrics, set "
                      "'{}', --clock-control none)",
                      versions.size(), no.metrics.size(), s.metric_set));
    r = run_ncu(no);
  }
  write_file_atomic(join_path(run_dir, "ncu_session.log"), shell_join(r.command) + "\n\n" + r.log);
  return r;
}

/// The session's rows and the versions as the split sees them, then the split.
void split_session(SessionRun& run, const std::vector<PendingProfile>& pending, const std::vector<size_t>& versions) {
  if (run.ncu.metrics_from_report && run.rep) {
    run.table = metric_table_from_rep(*run.rep);
  } else if (!run.ncu.csv.empty()) {
    try {
      run.table = parse_ncu_raw_csv(run.ncu.csv);
    } catch (const Error& e) {
      print_warning(std::string("ncu session: its export could not be read: ") + e.what());
    }
  }
  std::map<int, std::string> range_of;
  if (run.rep)
    for (const auto& k : run.rep->kernels)
      for (const auto& r : k.nvtx_ranges)
        // a version's range, or the environment's counter probe (the session's first launch)
        if (r.rfind(kSessionRangePrefix, 0) == 0 || r == kSessionProbeRange) range_of[k.id] = r;
  std::vector<SessionRow> rows;
  for (const auto& k : run.table.kernels) rows.push_back({k.id, k.name, range_of.count(k.id) ? range_of[k.id] : ""});
  rows = without_probe_rows(rows);
  // Each version's mark from the runner's outcome document (rewritten after each version); its
  // lines in ncu's log only when it wrote none (an older runner, or one that died before its first).
  auto marks =
      run.ncu.target.found ? session_marks_from_results(run.ncu.target.results) : read_session_marks(run.ncu.log);
  std::vector<SessionVersion> vs;
  for (size_t i : versions) {
    const PendingProfile& p = pending[i];
    auto m = marks.find(p.name);
    vs.push_back({p.name, p.out.timing.kernel.summary.call_sequence,
                  m == marks.end() ? SessionState::NotReached : m->second.state});
  }
  run.split = split_session_rows(rows, vs);
}

/// Version `p`'s share of the session: its rows, its replay passes, the session's command and report.
void attribute_version(PendingProfile& p, const SessionRun& run, const std::vector<int>& ids, int n_versions,
                       const ProfileSettings& s) {
  NcuRunResult r = run.ncu;
  r.failure = NcuFailure::None;
  r.message.clear();
  r.hint.clear();
  r.profiled.clear();
  r.passes.clear();
  r.replay_passes = 0;
  r.session_versions = n_versions;
  r.nvtx_range = session_range_name(p.name);
  MetricTable mine;
  mine.columns = run.table.columns;
  for (size_t row = 0; row < run.table.kernels.size(); ++row) {
    const KernelMetrics& k = run.table.kernels[row];
    if (std::find(ids.begin(), ids.end(), k.id) == ids.end()) continue;
    mine.kernels.push_back(k);
    r.profiled.push_back(k.name);
    int passes = row < run.ncu.passes.size() ? run.ncu.passes[row] : 0;  // ncu's progress lines, row order
    r.passes.push_back(passes);
    r.replay_passes = std::max(r.replay_passes, passes);
  }
  p.out.ncu = std::move(r);
  classify_session_rows(p.out, p.spec, s, p.work, std::move(mine), run.shared);
}

/// True when a session of its own would fail the same way (no ncu, no counter permission).
bool fails_everywhere(const NcuRunResult& r) {
  return r.failure == NcuFailure::NcuMissing || r.failure == NcuFailure::NoPermission;
}

/// The one session for `versions`; returns the indices of those it did not attribute. Sets
/// `stopped` when go_on stopped it (nothing attributed, nothing to redo). `charts` is called once
/// the attributed versions are classified, before their hot lines are read, with the number of
/// versions not attributed.
std::vector<size_t> profile_in_one_session(std::vector<PendingProfile>& pending, const std::vector<size_t>& versions,
                                           const ProfileSettings& s, const std::string& run_dir,
                                           StandbySession* standby, const std::function<bool()>& go_on, bool& stopped,
                                           const std::function<void(size_t)>& charts) {
  SessionRun run;
  NcuReportPrewarm warm(s.source);  // the report is read through ncu_report in any case
  run.ncu = run_session_ncu(pending, versions, s, run_dir, run, standby, warm, go_on);
  if ((stopped = run.ncu.stopped)) return {};
  if (fails_everywhere(run.ncu)) {
    for (size_t i : versions) {
      pending[i].out.ncu = run.ncu;
      pending[i].out.failure = run.ncu.message;
      pending[i].out.hint = run.ncu.hint;
    }
    return {};
  }
  split_session(run, pending, versions);
  std::vector<size_t> rest;
  size_t attributed = 0;
  for (size_t j = 0; j < versions.size(); ++j) {
    PendingProfile& p = pending[versions[j]];
    if (!run.split.attributed(j)) {
      print_warning(fmt::format("[{}] ncu session: not attributed ({}); profiling it in a session of its own", p.name,
                                run.split.why_not[j]));
      rest.push_back(versions[j]);
      continue;
    }
    timed(p, [&] { attribute_version(p, run, run.split.ids[j], static_cast<int>(versions.size()), s); });
    ++attributed;
  }
  // The charts are drawn while the hot lines' SASS waits for the disassembler's set-up.
  charts(rest.size());
  for (size_t j = 0; j < versions.size(); ++j)
    if (run.split.attributed(j))
      timed(pending[versions[j]], [&] { session_hot_lines(pending[versions[j]].out, s, run.shared); });
  if (s.show_progress)
    print_progress(fmt::format("ncu session: {:.1f} s, {} of {} versions attributed by {}; report {}", run.ncu.wall_s,
                               attributed, versions.size(), run.split.method,
                               run.ncu.report_path.empty() ? std::string("(none)") : run.ncu.report_path));
  return rest;
}

}  // namespace

PendingProfile time_for_session(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& s,
                                const std::string& name, const std::string& dir, bool with_work) {
  PendingProfile p;
  p.name = name;
  p.dir = dir;
  p.spec = spec;
  p.header = kernel_header_rows(spec, inst);
  p.out.timing = time_profile(inst, spec, s);
  if (with_work) p.work = call_work(inst, spec, s.ref, p.out.notes);
  return p;
}

std::string session_ineligible(const TimingResult& t) {
  if (!t.kernel.available) return "CUPTI's kernel records are not available (" + t.kernel.note + ")";
  if (t.kernel.summary.call_sequence.empty()) return "CUPTI saw no kernel in its first timed call";
  if (!t.kernel.summary.sequence_stable) return "its timed calls did not all launch the same kernels";
  return "";
}

void profile_pending(std::vector<PendingProfile>& pending, const ProfileSettings& s, const std::string& run_dir,
                     bool gpu_usable, StandbySession* standby,
                     const std::function<void(const std::vector<PendingProfile>&)>& classified,
                     const std::function<bool()>& go_on) {
  std::vector<size_t> shared, own;
  bool run_chart_started = false;
  for (size_t i = 0; i < pending.size(); ++i) {
    std::string why = session_ineligible(pending[i].out.timing);
    if (why.empty()) {
      shared.push_back(i);
    } else {
      if (s.show_progress) print_progress(fmt::format("[{}] ncu: a session of its own: {}", pending[i].name, why));
      own.push_back(i);
    }
  }
  if (!gpu_usable) {
    if (standby) standby->cancel("a version left the GPU unusable");
    for (auto& p : pending) {
      p.out.ncu.failure = NcuFailure::RunnerFailed;
      p.out.failure = "Nsight Compute did not run: a version before the ncu step left the GPU unusable";
      p.out.hint = "fix the version that hung or faulted (its row says which), then run again";
    }
  } else {
    // Chart workers import matplotlib while ncu runs: one per version and one for the run's chart,
    // at most half the cores (python/chart_pool.hpp).
    if (s.roofline)
      start_chart_workers(std::min<size_t>(pending.size() + 1, std::max(1u, std::thread::hardware_concurrency() / 2)));
    if (shared.size() < 2 && standby) standby->cancel("fewer than two versions share the session");
    // Without a released standby the environment is waited for before ncu starts.
    const bool released_first = standby && shared.size() >= 2;
    if (go_on && !released_first && !go_on()) return;
    bool stopped = false;
    // The versions' charts start as soon as they are classified; the run's once every version is.
    auto charts = [&](size_t unattributed) {
      for (auto& p : pending) timed(p, [&] { start_profile_chart(p.dir, s, p.out, p.header); });
      if (classified && unattributed == 0 && own.empty()) {
        classified(pending);
        run_chart_started = true;
      }
    };
    if (shared.size() == 1)
      own.push_back(shared.front());
    else if (!shared.empty())
      for (size_t i : profile_in_one_session(pending, shared, s, run_dir, standby, released_first ? go_on : nullptr,
                                             stopped, charts))
        own.push_back(i);
    if (stopped) return;
    std::sort(own.begin(), own.end());
    for (size_t i : own) {
      if (s.show_progress)
        print_progress(fmt::format("[{}] ncu: profiling it in a session of its own", pending[i].name));
      PendingProfile& p = pending[i];
      timed(p, [&] { profile_own_session(p.out, p.spec, s, p.dir, p.work); });
    }
  }
  // The charts first, all at once on the chart workers (started with the ncu step), then each
  // version's reports, which wait for its chart.
  if (classified && !run_chart_started) classified(pending);
  for (auto& p : pending) timed(p, [&] { start_profile_chart(p.dir, s, p.out, p.header); });
  for (auto& p : pending) timed(p, [&] { write_profile_reports(p.dir, p.spec, s, p.out, p.header); });
}

}  // namespace kprof
