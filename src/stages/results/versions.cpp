#include "stages/results/versions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "stages/analysis/derived.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/timing/gpu_duration.hpp"
#include "core/enum_names.hpp"

namespace kprof {
namespace {

namespace m = metric;

/// The noise between `a` and the baseline `b` under `rule` without samples (both have a time), ms.
double noise_ms(const VersionRow& a, const VersionRow& b, NoiseRule rule) {
  return std::max(a.spread_ms.value_or(0.0), b.spread_ms.value_or(0.0)) + rule.floor_frac * *b.time_ms;
}

bool within_noise(const VersionRow& a, const VersionRow& b, NoiseRule rule) {
  return std::fabs(*a.time_ms - *b.time_ms) <= noise_ms(a, b, rule);
}

/// The statistical verdict of `a` against `b` when both carry per-call samples.
std::optional<NoiseVerdict> verdict_of(const VersionRow& a, const VersionRow& b, NoiseRule rule) {
  if (a.time_samples_ms.size() < 2 || b.time_samples_ms.size() < 2) return std::nullopt;
  return noise_verdict(a.time_samples_ms, b.time_samples_ms,
                       rule.floor_frac > 0 ? kCrossRunMargins : kWithinRunMargins);
}

Change change_of(const NoiseVerdict& v) {
  switch (v.call) {
    case NoiseCall::Faster:
      return Change::Faster;
    case NoiseCall::Slower:
      return Change::Slower;
    case NoiseCall::Same:
      return Change::Same;
    case NoiseCall::Inconclusive:
      return Change::Inconclusive;
  }
  return Change::Inconclusive;
}

}  // namespace

/// The names of VersionStatus (core/enum_names.hpp).
constexpr auto kVersionStatusNames = enum_names<VersionStatus>({{VersionStatus::Pass, "pass"},
                                                                {VersionStatus::Fail, "fail"},
                                                                {VersionStatus::LoadError, "load_error"},
                                                                {VersionStatus::CheckError, "check_error"},
                                                                {VersionStatus::NotRun, "not_run"},
                                                                {VersionStatus::Unchecked, "unchecked"}},
                                                               "not_run");

std::string version_status_id(VersionStatus s) { return kVersionStatusNames.name(s); }

std::optional<VersionStatus> parse_version_status(const std::string& id) { return kVersionStatusNames.parse(id); }

/// The names of ProfileStatus (core/enum_names.hpp).
constexpr auto kProfileStatusNames = enum_names<ProfileStatus>({{ProfileStatus::Classified, "classified"},
                                                                {ProfileStatus::NotClassified, "not_classified"},
                                                                {ProfileStatus::NotProfiled, "not_profiled"}},
                                                               "not_profiled");

std::string profile_status_id(ProfileStatus s) { return kProfileStatusNames.name(s); }

std::optional<ProfileStatus> parse_profile_status(const std::string& id) { return kProfileStatusNames.parse(id); }

void fill_ncu_columns(VersionRow& row, const CallVerdict* verdict, const MetricTable* table, bool classified,
                      const std::string& failure) {
  if (!classified || !verdict || !table) {
    row.profile = ProfileStatus::NotClassified;
    row.profile_reason = failure;
    return;
  }
  const CallVerdict& v = *verdict;
  row.profile = ProfileStatus::Classified;
  row.cls = v.cls();
  if (v.leading < 0) return;
  const auto& k = table->kernels[static_cast<size_t>(v.leading)];
  auto sol = read_sol(k);
  row.sm_sol = sol.sm;
  row.mem_sol = sol.mem;
  row.achieved_occupancy = k.number(m::kAchievedOcc);
  row.dram_bytes = roofline_point(k).dram_bytes;
  auto stalls = ranked_stalls(k);
  if (!stalls.empty()) {
    row.leading_stall = stalls[0].reason;
    row.leading_stall_pct = stalls[0].share_pct;
  }
  if (v.bound && v.bound->bound_s) {
    row.pct_of_bound = v.bound->pct_of_bound;
    row.bound_ms = *v.bound->bound_s * 1e3;
    row.max_speedup = v.bound->max_speedup;
    row.bound_basis = v.bound->binding;
  }
  const auto& lead = v.kernels[static_cast<size_t>(v.leading)];
  // A finding capped to (nearly) nothing by the headroom is no lead: the version is at its bound.
  if (!lead.findings.empty() && lead.findings[0].ranked_pct() >= 0.5) {
    row.top_finding = lead.findings[0].title;
    row.top_finding_gain_pct = lead.findings[0].ranked_pct();
  }
}

void fill_timing_columns(VersionRow& row, const TimingResult& t) {
  row.profiled = true;
  row.integrity = integrity_status_id(t.integrity.verdict);
  row.integrity_issues.clear();
  for (const auto& c : t.integrity.checks)
    if (c.status == IntegrityStatus::Fail || c.status == IntegrityStatus::Warn)
      row.integrity_issues.push_back(c.name + ": " + c.detail);
  if (t.integrity.verdict == IntegrityStatus::Fail && row.status == VersionStatus::Pass) {
    row.status = VersionStatus::Fail;
    // The reason is the failing check, not a warning listed before it.
    for (const auto& c : t.integrity.checks)
      if (c.status == IntegrityStatus::Fail) {
        row.status_reason = "timing integrity: " + c.name + ": " + c.detail;
        break;
      }
  }
  row.sm_clock_mhz = t.call_discard.median_sm_mhz;
  row.throttled_calls = t.call_discard.throttled_seen;
  const double se = t.kernel.available ? t.kernel_rel_stderr : t.call_rel_stderr;
  if (!std::isnan(se)) row.rel_stderr = se;
  row.call_ms = t.call.median;
  row.call_std_ms = t.call.stddev;
  row.call_samples_ms = t.call_ms;
  if (auto k = reported_kernel_time(t)) {
    row.kernel_ms = k->stats->median;
    row.kernel_std_ms = k->stats->stddev;
    row.kernel_samples_ms = *k->per_call_ms;
    row.kernel_source = k->label;
  }
}

std::string choose_time_basis(std::vector<VersionRow>& rows) {
  bool all_kernel = true;
  std::set<std::string> sources;
  for (const auto& r : rows) {
    if (r.profiled && !r.kernel_ms) all_kernel = false;
    if (r.profiled && r.kernel_ms) sources.insert(r.kernel_source.empty() ? "CUPTI" : r.kernel_source);
  }
  for (auto& r : rows) {
    if (!r.profiled) continue;
    r.time_ms = all_kernel ? r.kernel_ms : r.call_ms;
    r.spread_ms = all_kernel ? r.kernel_std_ms : r.call_std_ms;
    r.time_samples_ms = all_kernel ? r.kernel_samples_ms : r.call_samples_ms;
  }
  if (!all_kernel) return "call time (CUDA events), median over the timed calls";
  if (sources.size() == 1 && *sources.begin() == kGpuDurationLabel)
    return fmt::format(
        "kernel time per call ({}, as ncu measures it: CUPTI range profiler), median over the "
        "timed calls",
        kGpuDurationLabel);
  if (sources.size() == 1) return "kernel time per call (CUPTI kernel records), median over the timed calls";
  return fmt::format(
      "kernel time per call ({} where CUPTI's range profiler read it, else CUPTI kernel "
      "records: see each version's kernel_source), median over the timed calls",
      kGpuDurationLabel);
}

/// The names of Change (core/enum_names.hpp).
constexpr auto kChangeNames = enum_names<Change>({{Change::Baseline, "baseline"},
                                                  {Change::Faster, "faster"},
                                                  {Change::Slower, "slower"},
                                                  {Change::Same, "same (within noise)"},
                                                  {Change::Inconclusive, "inconclusive"},
                                                  {Change::NotComparable, "n/a"}},
                                                 "n/a");

std::string change_name(Change c) { return kChangeNames.name(c); }

std::string change_id(Change c) { return c == Change::Same ? "same" : change_name(c); }

std::vector<RowComparison> compare_versions(const std::vector<VersionRow>& rows, NoiseRule rule) {
  std::vector<RowComparison> out(rows.size());
  int base = -1;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].time_ms) {
      base = static_cast<int>(i);
      break;
    }
  int fastest = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& c = out[i];
    const auto& r = rows[i];
    if (!r.time_ms || base < 0) continue;
    if (r.correct() && (fastest < 0 || *r.time_ms < *rows[static_cast<size_t>(fastest)].time_ms))
      fastest = static_cast<int>(i);
    const auto& b = rows[static_cast<size_t>(base)];
    c.speedup = *b.time_ms / *r.time_ms;
    c.noise_ms = noise_ms(r, b, rule);
    if (static_cast<int>(i) != base) c.verdict = verdict_of(r, b, rule);
    if (static_cast<int>(i) == base)
      c.change = Change::Baseline;
    else if (c.verdict)
      c.change = change_of(*c.verdict);
    else if (within_noise(r, b, rule))
      c.change = Change::Same;
    else
      c.change = *r.time_ms < *b.time_ms ? Change::Faster : Change::Slower;
  }
  if (fastest < 0) return out;
  const VersionRow& f = rows[static_cast<size_t>(fastest)];
  out[static_cast<size_t>(fastest)].fastest = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (static_cast<int>(i) == fastest || !r.correct() || !r.time_ms) continue;
    out[i].verdict_vs_fastest = verdict_of(r, f, rule);
    out[i].tied_with_fastest = out[i].verdict_vs_fastest
                                   ? out[i].verdict_vs_fastest->call == NoiseCall::Same ||
                                         out[i].verdict_vs_fastest->call == NoiseCall::Inconclusive
                                   : within_noise(r, f, rule);
  }
  return out;
}

}  // namespace kprof
