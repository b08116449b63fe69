#include "stages/results/compare.hpp"
#include "stages/results/decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kprof {
namespace {

/// The header keys whose difference makes two results measure different things.
constexpr const char* kSameKeys[] = {"GPU", "Dimensions", "Seed"};

/// Warnings for `in` against the baseline `base`.
void header_warnings(const CompareInput& base, const CompareInput& in, std::vector<std::string>& out) {
  for (const char* key : kSameKeys) {
    auto a = base.header.find(key), b = in.header.find(key);
    std::string av = a == base.header.end() ? "(not recorded)" : a->second;
    std::string bv = b == in.header.end() ? "(not recorded)" : b->second;
    if (av != bv)
      out.push_back(fmt::format("{} ({}) has another {} than the baseline {} ({}): {} against {}", in.label, in.path,
                                key, base.label, base.path, bv, av));
  }
  if (in.schema_version != base.schema_version)
    out.push_back(fmt::format("{} ({}) has schema_version {}, the baseline {}: fields missing from one are n/a",
                              in.label, in.path, in.schema_version, base.schema_version));
}

/// Whether a status counts as "correct" for the gate (unchecked: not known, so not a failure).
bool failed(VersionStatus s) {
  return s == VersionStatus::Fail || s == VersionStatus::LoadError || s == VersionStatus::CheckError ||
         s == VersionStatus::NotRun;
}

/// The gate for version `v` in input `i`: missing, or no longer correct (saved runs decide no
/// slowdown: the pytest gate re-times the baseline beside the candidate). Appends to `out`.
void gate(const VersionAcross& v, size_t i, const std::string& label, std::vector<GateFailure>& out) {
  const auto& base = v.rows[0];
  const auto& row = v.rows[i];
  if (!base) return;  // new in a later input: nothing to regress from
  if (!row) {
    out.push_back({v.name, label, "missing"});
    return;
  }
  if (base->status == VersionStatus::Pass && failed(row->status))
    out.push_back({v.name, label,
                   "no longer correct: " + version_status_id(row->status) +
                       (row->status_reason.empty() ? "" : " (" + row->status_reason + ")")});
}

/// What a row's time is: "kernel time (gpu__time_duration)" or "call time (CUDA events)"; "" when
/// the row does not say (no time, or not both kernel and call times saved: an older result).
std::string time_basis(const VersionRow& r) {
  if (!r.time_ms || !r.kernel_ms || !r.call_ms) return "";
  if (*r.kernel_ms == *r.time_ms)
    return "kernel time (" + (r.kernel_source.empty() ? std::string("CUPTI") : r.kernel_source) + ")";
  return "call time (CUDA events)";
}

/// Warnings when `row` of input `in` timed another thing than the baseline's `base` (the basis or
/// the SM clock state, beyond kClockStateTolerance).
void timed_thing_warnings(const std::string& name, const VersionRow& base, const VersionRow& row,
                          const CompareInput& in, std::vector<std::string>& out) {
  const std::string a = time_basis(base), b = time_basis(row);
  if (!a.empty() && !b.empty() && a != b)
    out.push_back(fmt::format("{}: {} timed {}, the baseline {}: not the same measurement, the two are not compared",
                              name, in.label, b, a));
  if (base.sm_clock_mhz && row.sm_clock_mhz &&
      std::abs(static_cast<double>(*row.sm_clock_mhz) / *base.sm_clock_mhz - 1) > kClockStateTolerance)
    out.push_back(fmt::format("{}: {} ran at {} MHz, the baseline at {} MHz: another clock state", name, in.label,
                              *row.sm_clock_mhz, *base.sm_clock_mhz));
}

/// Across saved runs with one run per side: a run differs from another by more than its own
/// samples say, so no keep or revert (a revert for correctness stands).
CandidateDecision across_runs(const VersionRow& base, const VersionRow& row, double min_gain) {
  CandidateDecision d;
  const CandidateState s = candidate_state(row);
  if (!s.correct) {
    d.decision = Decision::Revert;
    d.on_state = true;
    d.reason = "not correct: " + s.why_not;
  } else {
    d.reason = fmt::format(
        "one run on each side: runs of one kernel on this machine differ by up to {:.0f}% (kprof's between-run "
        "spread, docs/METHOD.md), which one run's samples cannot show; no keep or revert from saved runs",
        100 * kCrossRunNoiseFloor);
    if (base.time_ms && row.time_ms && *row.time_ms > 0 &&
        std::fabs(std::log(*base.time_ms / *row.time_ms)) > std::log1p(kCrossRunNoiseFloor))
      d.reason += fmt::format("; its {:+.1f}% is more than runs differ by here, so likely real",
                              100 * (*row.time_ms / *base.time_ms - 1));
    d.reason += ". To decide, time both in one run: kprof run BASELINE NEW --decide";
  }
  d.paired = false;
  d.floor = kCrossRunNoiseFloor;
  d.min_gain = min_gain;
  d.threshold = std::max(kCrossRunNoiseFloor, min_gain);
  if (base.time_ms && row.time_ms && *row.time_ms > 0) d.ratio = *base.time_ms / *row.time_ms;
  d.rounds = 1;
  return d;
}

}  // namespace

CompareResult compare_inputs(std::vector<CompareInput> inputs, std::optional<double> fail_if_slower_pct) {
  CompareResult r;
  r.inputs = std::move(inputs);
  r.fail_if_slower_pct = fail_if_slower_pct;
  if (r.inputs.empty()) return r;
  for (size_t i = 1; i < r.inputs.size(); ++i) header_warnings(r.inputs[0], r.inputs[i], r.warnings);
  std::vector<std::string> names;  // baseline order, then versions new in later inputs
  for (const auto& in : r.inputs)
    for (const auto& row : in.rows)
      if (std::find(names.begin(), names.end(), row.name) == names.end()) names.push_back(row.name);
  for (const auto& name : names) {
    VersionAcross v;
    v.name = name;
    for (const auto& in : r.inputs) {
      auto it = std::find_if(in.rows.begin(), in.rows.end(), [&](const VersionRow& x) { return x.name == name; });
      v.rows.push_back(it == in.rows.end() ? std::nullopt : std::optional<VersionRow>(*it));
    }
    // compare_versions compares with the first row that has a time: the baseline's, when it has one.
    std::vector<VersionRow> present;
    std::vector<size_t> where;
    for (size_t i = 0; i < v.rows.size(); ++i)
      if (v.rows[i]) {
        present.push_back(*v.rows[i]);
        where.push_back(i);
      }
    auto cmp = compare_versions(present, NoiseRule{kCrossRunNoiseFloor});
    v.cmp.assign(v.rows.size(), RowComparison{});
    if (v.rows[0] && v.rows[0]->time_ms)
      for (size_t k = 0; k < where.size(); ++k) {
        RowComparison& c = v.cmp[where[k]];
        c = cmp[k];
        c.fastest = c.tied_with_fastest = false;  // one version across runs: no ranking
        // The vs-first column follows the across-runs rule: with one run per side, never faster,
        // slower or the same (only the speedup, for reading).
        if (c.change != Change::Baseline && c.change != Change::NotComparable) {
          c.change = Change::Inconclusive;
          c.verdict.reset();
        }
      }
    v.decision.assign(v.rows.size(), std::nullopt);
    const double min_gain = fail_if_slower_pct ? *fail_if_slower_pct / 100 : kDefaultMinGain;
    for (size_t i = 1; i < v.rows.size(); ++i)
      if (v.rows[0] && v.rows[i]) {
        timed_thing_warnings(name, *v.rows[0], *v.rows[i], r.inputs[i], r.warnings);
        if (v.rows[0]->time_ms && v.rows[i]->time_ms) v.decision[i] = across_runs(*v.rows[0], *v.rows[i], min_gain);
      }
    r.versions.push_back(std::move(v));
  }
  if (fail_if_slower_pct) {
    for (const auto& v : r.versions)
      for (size_t i = 1; i < r.inputs.size(); ++i) gate(v, i, r.inputs[i].label, r.failures);
    r.exit_code = r.failures.empty() ? 0 : 1;
  }
  return r;
}

}  // namespace kprof
