#include "flows/units.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "flows/run/run_steps.hpp"
#include "report/units_report.hpp"

namespace kprof {

std::vector<Unit> make_units(const std::vector<KernelSpec>& versions, const std::vector<SweepPoint>& grid) {
  std::vector<std::string> names = version_folder_names(versions);
  std::vector<Unit> units;
  for (const auto& point : grid)
    for (size_t i = 0; i < versions.size(); ++i) {
      Dims d = dims_at(versions[i].dims, point);
      Unit u;
      u.version = names[i];
      u.version_index = i;
      u.kernel = versions[i].kernel;
      for (const auto& dim : d.all()) u.dims.emplace_back(dim.name, dim.text);
      u.key = dims_key(d);
      units.push_back(std::move(u));
    }
  return units;
}

void write_unit_plan(const UnitPlan& plan, const std::string& path) {
  nlohmann::json j = {{"schema_version", kReportSchemaVersion},
                      {"units", plan.units},
                      {"run", plan.run_ids},
                      {"request", plan.request},
                      {"cwd", plan.cwd},
                      {"out", plan.out},
                      {"axes", plan.axes},
                      {"ncu", plan.ncu}};
  write_file_atomic(path, j.dump(1) + "\n");
}

UnitPlan read_unit_plan(const std::string& path) {
  const char* hint = "give the units.json that `kprof run --sweep/--gpus/--slurm` wrote in its output folder";
  if (!path_exists(path)) throw usage_error("cannot read " + path + ": no such file", hint);
  try {
    nlohmann::json j = nlohmann::json::parse(read_file(path));
    UnitPlan p;
    p.units = j.at("units").get<std::vector<Unit>>();
    p.run_ids = j.value("run", std::vector<std::string>{});
    p.request = j.value("request", nlohmann::json());  // null in a list of kprof <= 0.x (run_args): see the worker
    p.cwd = j.value("cwd", "");
    p.out = j.value("out", parent_dir(path));
    p.axes = j.value("axes", std::vector<std::string>{});
    p.ncu = j.value("ncu", true);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw usage_error(path + " is not a kprof unit list: " + one_line_summary(e.what()), hint);
  }
}

std::string unit_result_path(const std::string& out, const Unit& u) {
  return join_path(join_path(join_path(out, "units"), u.version), u.key + ".json");
}

std::optional<UnitResult> read_unit_result(const std::string& out, const Unit& u) {
  std::string path = unit_result_path(out, u);
  if (!path_exists(path)) return std::nullopt;
  try {
    UnitResult r = nlohmann::json::parse(read_file(path)).get<UnitResult>();
    if (r.unit.id() != u.id()) throw usage_error("it holds unit " + r.unit.id());
    return r;
  } catch (const std::exception& e) {
    print_warning(path + " is not a unit result (" + one_line_summary(e.what()) + "): the unit runs again");
    return std::nullopt;
  }
}

void write_unit_result(const std::string& out, const UnitResult& r) {
  nlohmann::json j = r;
  write_file_atomic(unit_result_path(out, r.unit), j.dump(1) + "\n");
}

std::vector<Unit> pending_units(const std::string& out, const std::vector<Unit>& units) {
  std::vector<Unit> left;
  for (const auto& u : units) {
    auto r = read_unit_result(out, u);
    if (!r || !unit_result_is_final(*r)) left.push_back(u);
  }
  return left;
}

std::vector<Unit> units_to_run(const UnitPlan& plan) {
  std::set<std::string> ids(plan.run_ids.begin(), plan.run_ids.end());
  std::vector<Unit> out;
  for (const auto& u : plan.units)
    if (ids.count(u.id())) out.push_back(u);
  return out;
}

std::vector<Unit> shard_of(const std::vector<Unit>& units, int k, int n) {
  if (n < 1 || k < 0 || k >= n)
    throw usage_error("shard " + std::to_string(k) + "/" + std::to_string(n) + " is out of range",
                      "give --shard K/N with 0 <= K < N");
  std::vector<std::string> keys;
  std::map<std::string, size_t> point_of;
  for (const auto& u : units)
    if (point_of.emplace(u.key, keys.size()).second) keys.push_back(u.key);
  const bool by_point = keys.size() >= static_cast<size_t>(n);
  std::vector<Unit> out;
  for (size_t i = 0; i < units.size(); ++i) {
    size_t slot = by_point ? point_of[units[i].key] : i;
    if (slot % static_cast<size_t>(n) == static_cast<size_t>(k)) out.push_back(units[i]);
  }
  return out;
}

std::pair<int, int> parse_shard(const std::string& text) {
  auto slash = text.find('/');
  auto k = parse_number(text.substr(0, slash)),
       n = slash == std::string::npos ? std::nullopt : parse_number(text.substr(slash + 1));
  if (!k || !n || *n < 1 || *k < 0 || *k >= *n || *k != static_cast<int>(*k) || *n != static_cast<int>(*n))
    throw usage_error("--shard " + text + ": not K/N with 0 <= K < N", "for example --shard 0/4");
  return {static_cast<int>(*k), static_cast<int>(*n)};
}

UnitResult placeholder_result(const Unit& u, UnitStatus status, const std::string& reason) {
  UnitResult r;
  r.unit = u;
  r.status = status;
  r.reason = reason;
  r.source = ResultSource::Orchestrator;
  r.row.name = u.version;
  r.row.kernel = u.kernel;
  r.row.status = VersionStatus::NotRun;
  r.row.status_reason = reason;
  r.date = now_string();
  return r;
}

}  // namespace kprof
