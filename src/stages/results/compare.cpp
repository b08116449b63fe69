#include "stages/results/compare.hpp"
#include "stages/results/decision.hpp"

#include <fmt/format.h>

#include <algorithm>

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

/// The gate for version `v` in input `i`; appends to `out`.
void gate(const VersionAcross& v, size_t i, const std::string& label, double pct, std::vector<GateFailure>& out) {
  const auto& base = v.rows[0];
  const auto& row = v.rows[i];
  if (!base) return;  // new in a later input: nothing to regress from
  if (!row) {
    out.push_back({v.name, label, "missing"});
    return;
  }
  if (base->status == VersionStatus::Pass && failed(row->status)) {
    out.push_back({v.name, label,
                   "no longer correct: " + version_status_id(row->status) +
                       (row->status_reason.empty() ? "" : " (" + row->status_reason + ")")});
    return;
  }
  if (const auto& d = v.decision[i]) {  // the decision rule, as `kprof run --decide` reads it
    if (d->decision == Decision::Revert && !d->on_state && d->ratio && d->lo && d->hi)
      out.push_back({v.name, label,
                     fmt::format("slower by {:.1f}%: revert ({:.0f}% interval {:.1f}% to {:.1f}% slower, beyond the "
                                 "{:.1f}% threshold)",
                                 (1 / *d->ratio - 1) * 100.0, 100 * d->confidence, (1 / *d->hi - 1) * 100.0,
                                 (1 / *d->lo - 1) * 100.0, 100 * d->threshold)});
    return;
  }
  const RowComparison& c = v.cmp[i];
  if (c.change != Change::Slower || !base->time_ms || !row->time_ms) return;
  double slower_pct = (*row->time_ms / *base->time_ms - 1.0) * 100.0;
  if (slower_pct > pct)
    out.push_back({v.name, label,
                   fmt::format("slower by {:.1f}% (beyond the noise of {:.3g} ms and the {:g}% threshold)", slower_pct,
                               c.noise_ms.value_or(0.0), pct)});
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
        v.cmp[where[k]] = cmp[k];
        v.cmp[where[k]].fastest = v.cmp[where[k]].tied_with_fastest = false;  // one version across runs: no ranking
      }
    v.decision.assign(v.rows.size(), std::nullopt);
    DecisionRule rule;
    if (fail_if_slower_pct) rule.min_gain = *fail_if_slower_pct / 100;
    for (size_t i = 1; i < v.rows.size(); ++i)
      if (v.rows[0] && v.rows[i] && v.rows[0]->time_samples_ms.size() > 1 && v.rows[i]->time_samples_ms.size() > 1)
        v.decision[i] = decide_unpaired(v.rows[0]->time_samples_ms, v.rows[i]->time_samples_ms, kCrossRunNoiseFloor,
                                        rule, candidate_state(*v.rows[i]));
    r.versions.push_back(std::move(v));
  }
  if (fail_if_slower_pct) {
    for (const auto& v : r.versions)
      for (size_t i = 1; i < r.inputs.size(); ++i) gate(v, i, r.inputs[i].label, *fail_if_slower_pct, r.failures);
    r.exit_code = r.failures.empty() ? 0 : 1;
  }
  return r;
}

}  // namespace kprof
