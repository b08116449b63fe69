#include "report/units_report.hpp"

#include <fmt/format.h>

#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "report/comparison.hpp"

namespace kprof {
namespace {

nlohmann::json opt_u(const std::optional<unsigned>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
std::optional<unsigned> get_u(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<unsigned>(it->get<unsigned>()) : std::nullopt;
}

std::string short_uuid(const std::string& uuid) { return uuid.size() > 12 ? uuid.substr(0, 12) : uuid; }

std::string dims_text(const std::vector<std::pair<std::string, std::string>>& dims) {
  std::string s;
  for (const auto& [k, v] : dims) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s.empty() ? "(none)" : s;
}

std::string dim_value(const PointResults& p, const std::string& name) {
  for (const auto& [k, v] : p.dims)
    if (k == name) return v;
  return "";
}

/// The point's table: one row per unit.
std::string point_table(const MergedPoint& mp) {
  std::vector<std::vector<std::string>> t;
  for (size_t i = 0; i < mp.point.units.size(); ++i) {
    const UnitResult& u = mp.point.units[i];
    const RowComparison& c = mp.comparison[i];
    const VersionRow& r = u.row;
    std::string label = u.unit.version;
    if (c.fastest)
      label = "**" + label + "** (fastest)";
    else if (c.tied_with_fastest)
      label = "**" + label + "** (as fast, within noise)";
    std::string finding = top_finding_text(r);
    std::string status = unit_status_text(u);
    if (status.size() > 160) status = status.substr(0, 157) + "...";  // the whole reason is in the unit's file
    t.push_back({label, status, unit_gpu_text(u.place),
                 r.time_ms ? fmt::format("{} ± {}", fmt_duration_ms(*r.time_ms),
                                         r.spread_ms ? fmt_duration_ms(*r.spread_ms) : "n/a")
                           : "n/a",
                 c.speedup ? fmt::format("{:.2f}x", *c.speedup) : "n/a", change_name(c.change), class_text(r),
                 r.pct_of_bound ? fmt::format("{:.1f}%", *r.pct_of_bound) : "n/a", finding.empty() ? "none" : finding});
  }
  return markdown_table({"Version", "Status", "GPU", "Median time ± std", "Speedup vs first", "vs first", "Class",
                         "% of bound", "Top finding (est. gain)"},
                        t);
}

/// Per version: its class and % of bound at every point.
std::string by_size_tables(const MergedUnits& m) {
  std::vector<std::string> versions;
  std::map<std::string, std::vector<std::vector<std::string>>> rows;
  for (const auto& mp : m.points)
    for (const auto& u : mp.point.units) {
      if (!rows.count(u.unit.version)) versions.push_back(u.unit.version);
      const VersionRow& r = u.row;
      rows[u.unit.version].push_back({dims_text(u.unit.dims),
                                      u.status == UnitStatus::Ok ? "ok" : unit_status_id(u.status),
                                      r.time_ms ? fmt_duration_ms(*r.time_ms) : "n/a",
                                      r.profile == ProfileStatus::Classified ? bottleneck_name(r.cls) : "n/a",
                                      r.pct_of_bound ? fmt::format("{:.1f}%", *r.pct_of_bound) : "n/a",
                                      r.mem_sol ? fmt::format("{:.1f}%", *r.mem_sol) : "n/a",
                                      r.sm_sol ? fmt::format("{:.1f}%", *r.sm_sol) : "n/a"});
    }
  std::string md;
  for (const auto& v : versions)
    md +=
        "\n### " + v + ": class and % of bound by size\n\n" +
        markdown_table({"Dimensions", "Status", "Median time", "Class", "% of bound", "Memory SOL", "SM SOL"}, rows[v]);
  return md;
}

}  // namespace

void to_json(nlohmann::json& j, const Unit& u) {
  nlohmann::json dims = nlohmann::json::object();
  nlohmann::json order = nlohmann::json::array();
  for (const auto& [k, v] : u.dims) {
    dims[k] = v;
    order.push_back(k);
  }
  j = {{"version", u.version}, {"version_index", u.version_index},
       {"kernel", u.kernel},   {"dims", dims},
       {"dims_order", order},  {"key", u.key}};
}

void from_json(const nlohmann::json& j, Unit& u) {
  u.version = j.at("version").get<std::string>();
  u.version_index = j.value("version_index", size_t{0});
  u.kernel = j.value("kernel", "");
  u.key = j.at("key").get<std::string>();
  u.dims.clear();
  const auto& dims = j.at("dims");
  for (const auto& k : j.value("dims_order", nlohmann::json::array()))
    u.dims.emplace_back(k.get<std::string>(), dims.at(k.get<std::string>()).get<std::string>());
}

void to_json(nlohmann::json& j, const UnitResult& r) {
  const UnitPlace& p = r.place;
  j = {{"schema_version", kReportSchemaVersion},
       {"unit", r.unit},
       {"status", unit_status_id(r.status)},
       {"reason", r.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.reason)},
       {"place",
        {{"host", p.host},
         {"gpu_name", p.gpu_name},
         {"gpu_uuid", p.gpu_uuid},
         {"gpu_visible", p.gpu_visible},
         {"driver", p.driver},
         {"ncu_version", p.ncu_version},
         {"sm_mhz", opt_u(p.sm_mhz)},
         {"mem_mhz", opt_u(p.mem_mhz)},
         {"sm_max_mhz", opt_u(p.sm_max_mhz)}}},
       {"row", r.row},
       {"written_by", r.source == ResultSource::Worker ? "worker" : "orchestrator"},
       {"date", r.date}};
}

void from_json(const nlohmann::json& j, UnitResult& r) {
  if (j.value("schema_version", 1) < 2)
    throw usage_error("not a kprof unit result (schema_version 2)", "delete the file: the unit runs again");
  r.unit = j.at("unit").get<Unit>();
  auto st = parse_unit_status(j.value("status", ""));
  if (!st)
    throw usage_error("unknown unit status \"" + j.value("status", "") + "\"", "delete the file: the unit runs again");
  r.status = *st;
  r.reason = j.value("reason", nlohmann::json("")).is_string() ? j.at("reason").get<std::string>() : "";
  const auto& p = j.at("place");
  r.place.host = p.value("host", "");
  r.place.gpu_name = p.value("gpu_name", "");
  r.place.gpu_uuid = p.value("gpu_uuid", "");
  r.place.gpu_visible = p.value("gpu_visible", "");
  r.place.driver = p.value("driver", "");
  r.place.ncu_version = p.value("ncu_version", "");
  r.place.sm_mhz = get_u(p, "sm_mhz");
  r.place.mem_mhz = get_u(p, "mem_mhz");
  r.place.sm_max_mhz = get_u(p, "sm_max_mhz");
  r.row = j.at("row").get<VersionRow>();
  r.source = j.value("written_by", "worker") == "orchestrator" ? ResultSource::Orchestrator : ResultSource::Worker;
  r.date = j.value("date", "");
}

std::string unit_status_text(const UnitResult& r) {
  if (r.status == UnitStatus::Ok || r.reason.empty()) return unit_status_id(r.status);
  return unit_status_id(r.status) + ": " + r.reason;
}

std::string unit_gpu_text(const UnitPlace& p) {
  std::string id = !p.gpu_uuid.empty()      ? short_uuid(p.gpu_uuid)
                   : !p.gpu_visible.empty() ? "CUDA_VISIBLE_DEVICES=" + p.gpu_visible
                                            : "";
  if (p.gpu_name.empty()) return id.empty() ? "unknown" : id;
  return id.empty() ? p.gpu_name : p.gpu_name + " (" + id + ")";
}

std::string units_markdown(const MergedUnits& m, const std::vector<std::string>& axes,
                           const std::vector<std::pair<std::string, std::string>>& header, const std::string& chart) {
  std::string md = "# Comparison of kernel versions by size\n\n";
  std::vector<std::vector<std::string>> h;
  for (const auto& [k, v] : header) h.push_back({k, v});
  std::string axes_text;
  for (const auto& a : axes) axes_text += (axes_text.empty() ? "" : " x ") + a;
  h.push_back({"Swept", axes_text.empty() ? "(nothing: one size)" : axes_text});
  h.push_back({"Units ok", fmt::format("{} of {}", m.ok, m.total)});
  md += markdown_table({"Item", "Value"}, h);
  for (const auto& w : m.warnings) md += "\n**Warning:** " + w + "\n";
  for (const auto& mp : m.points) {
    md += "\n## " + dims_text(mp.point.dims) + "\n\n" + point_table(mp);
    md += "\nTime compared: " + mp.time_basis + ". Each version's reports: runs/" + mp.point.key + "/.\n";
  }
  md += by_size_tables(m);
  if (!chart.empty()) md += "\n![time and % of bound by size](" + chart + ")\n";
  return md;
}

nlohmann::json units_json(const MergedUnits& m, const std::vector<std::string>& axes,
                          const std::vector<std::pair<std::string, std::string>>& header) {
  nlohmann::json j = {{"schema_version", kReportSchemaVersion}, {"axes", axes}, {"warnings", m.warnings}};
  nlohmann::json hj = nlohmann::json::object();
  for (const auto& [k, v] : header) hj[k] = v;
  j["header"] = hj;
  nlohmann::json points = nlohmann::json::array(), versions = nlohmann::json::array();
  for (const auto& mp : m.points) {
    nlohmann::json units = nlohmann::json::array();
    for (size_t i = 0; i < mp.point.units.size(); ++i) {
      nlohmann::json u = mp.point.units[i];
      u["comparison"] = mp.comparison[i];
      units.push_back(u);
      nlohmann::json row = mp.point.units[i].row;
      row["name"] = m.points.size() == 1 ? mp.point.units[i].unit.version : mp.point.units[i].unit.id();
      row["unit_status"] = unit_status_id(mp.point.units[i].status);
      versions.push_back(row);
    }
    points.push_back({{"key", mp.point.key}, {"time_basis", mp.time_basis}, {"units", units}});
  }
  j["points"] = points;
  j["versions"] = versions;
  return j;
}

nlohmann::json sweep_chart_spec(const MergedUnits& m, const std::vector<std::string>& axes) {
  nlohmann::json spec = {{"title", "kprof sweep: time and % of bound by size"},
                         {"x_label", axes.empty() ? std::string("point") : axes[0]}};
  std::vector<std::string> labels;
  std::map<std::string, nlohmann::json> series;
  bool any = false;
  for (const auto& mp : m.points)
    for (const auto& u : mp.point.units) {
      std::string label = u.unit.version;
      for (size_t a = 1; a < axes.size(); ++a) label += " " + axes[a] + "=" + dim_value(mp.point, axes[a]);
      if (!series.count(label)) {
        labels.push_back(label);
        series[label] = {{"label", label},
                         {"x", nlohmann::json::array()},
                         {"time_ms", nlohmann::json::array()},
                         {"pct_of_bound", nlohmann::json::array()}};
      }
      auto x = parse_number(axes.empty() ? "" : dim_value(mp.point, axes[0]));
      auto& s = series[label];
      s["x"].push_back(x ? nlohmann::json(*x) : nlohmann::json(s["x"].size()));
      s["time_ms"].push_back(u.row.time_ms ? nlohmann::json(*u.row.time_ms) : nlohmann::json(nullptr));
      s["pct_of_bound"].push_back(u.row.pct_of_bound ? nlohmann::json(*u.row.pct_of_bound) : nlohmann::json(nullptr));
      any = any || u.row.time_ms.has_value();
    }
  nlohmann::json arr = nlohmann::json::array();
  if (any)
    for (const auto& l : labels) arr.push_back(series[l]);
  spec["series"] = arr;
  return spec;
}

}  // namespace kprof
