#include "stages/results/units.hpp"
#include "core/enum_names.hpp"

#include <map>
#include <set>

namespace kprof {

/// The names of UnitStatus (core/enum_names.hpp).
constexpr auto kUnitStatusNames = enum_names<UnitStatus>({{UnitStatus::Ok, "ok"},
                                                          {UnitStatus::Wrong, "wrong"},
                                                          {UnitStatus::BuildError, "build_error"},
                                                          {UnitStatus::LoadError, "load_error"},
                                                          {UnitStatus::Timeout, "timeout"},
                                                          {UnitStatus::Crash, "crash"},
                                                          {UnitStatus::ProfileUnavailable, "profile_unavailable"},
                                                          {UnitStatus::NotRun, "not_run"}},
                                                         "not_run");

std::string unit_status_id(UnitStatus s) { return kUnitStatusNames.name(s); }

std::optional<UnitStatus> parse_unit_status(const std::string& id) { return kUnitStatusNames.parse(id); }

UnitStatus unit_status_of(const VersionRow& row, bool ncu_requested, bool build_failed) {
  switch (row.status) {
    case VersionStatus::LoadError:
      return build_failed ? UnitStatus::BuildError : UnitStatus::LoadError;
    case VersionStatus::CheckError:
      return UnitStatus::LoadError;
    case VersionStatus::NotRun:
    case VersionStatus::Unchecked:
      return UnitStatus::NotRun;
    case VersionStatus::Fail:
      if (row.fault == FaultKind::Timeout) return UnitStatus::Timeout;
      if (row.fault == FaultKind::KernelError) return UnitStatus::Crash;
      return UnitStatus::Wrong;
    case VersionStatus::Pass:
      break;
  }
  if (row.profile == ProfileStatus::Classified) return UnitStatus::Ok;
  if (!ncu_requested && row.profiled) return UnitStatus::Ok;
  return UnitStatus::ProfileUnavailable;
}

bool unit_result_is_final(const UnitResult& r) {
  return r.source == ResultSource::Worker && r.status != UnitStatus::NotRun;
}

std::vector<PointResults> group_by_point(const std::vector<UnitResult>& results) {
  std::vector<PointResults> points;
  std::map<std::string, size_t> at;
  for (const auto& r : results) {
    auto [it, fresh] = at.emplace(r.unit.key, points.size());
    if (fresh) points.push_back({r.unit.key, r.unit.dims, {}});
    points[it->second].units.push_back(r);
  }
  return points;
}

MergedUnits merge_unit_results(const std::vector<Unit>& units, const std::vector<UnitResult>& results) {
  std::map<std::string, const UnitResult*> by_id;
  for (const auto& r : results) by_id[r.unit.id()] = &r;
  std::vector<UnitResult> ordered;
  size_t missing = 0;
  for (const auto& u : units) {
    auto it = by_id.find(u.id());
    if (it != by_id.end()) {
      ordered.push_back(*it->second);
      by_id.erase(it);
    } else {
      ++missing;
    }
  }
  for (const auto& r : results)  // results of units no longer in the list: kept, after the others
    if (by_id.count(r.unit.id())) ordered.push_back(r);
  MergedUnits m;
  std::set<std::string> models, drivers;
  for (const auto& r : ordered) {
    ++m.total;
    if (r.status == UnitStatus::Ok) ++m.ok;
    if (!r.place.gpu_name.empty()) models.insert(r.place.gpu_name);
    if (!r.place.driver.empty()) drivers.insert(r.place.driver);
  }
  auto joined = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (models.size() > 1)
    m.warnings.push_back("the units ran on GPUs of different models (" + joined(models) +
                         "): times of different models do not compare");
  if (drivers.size() > 1) m.warnings.push_back("the units ran under different drivers (" + joined(drivers) + ")");
  if (missing)
    m.warnings.push_back(std::to_string(missing) +
                         " unit(s) have no result yet (run the same command again to run them)");
  for (auto& p : group_by_point(ordered)) {
    MergedPoint mp;
    std::vector<VersionRow> rows;
    for (const auto& u : p.units) rows.push_back(u.row);
    mp.time_basis = choose_time_basis(rows);
    mp.comparison = compare_versions(rows);
    for (size_t i = 0; i < rows.size(); ++i) p.units[i].row = rows[i];
    mp.point = std::move(p);
    m.points.push_back(std::move(mp));
  }
  return m;
}

}  // namespace kprof
