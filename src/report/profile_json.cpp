#include "report/profile_json.hpp"

#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "report/comparison.hpp"
#include "report/schema.hpp"
#include "report/timing_report.hpp"

namespace kprof {

bool header_row_is_typed_elsewhere(const std::string& key) {
  return key == "Execution time" || key == "ncu" || key.rfind("Buffer ", 0) == 0;
}

nlohmann::json inputs_json(const ProfileJson& p) {
  nlohmann::json dims = nlohmann::json::object();
  if (p.dims)
    for (const Dim& d : p.dims->all()) {
      if (d.is_int)
        dims[d.name] = static_cast<int64_t>(d.value);
      else
        dims[d.name] = d.value;
    }
  nlohmann::json buffers = nlohmann::json::array();
  for (const BufferView& b : p.buffers)
    buffers.push_back({{"name", b.name},
                       {"dtype", dtype_name(b.dtype)},
                       {"count", b.count},
                       {"bytes", b.count * dtype_size(b.dtype)},
                       {"output", b.is_output}});
  return {{"dims", dims}, {"seed", p.seed ? nlohmann::json(*p.seed) : nlohmann::json(nullptr)}, {"buffers", buffers}};
}

nlohmann::json profile_json(const ProfileJson& p, const NcuReportHeader& nh) {
  nlohmann::json j;
  if (p.classified && p.table && p.verdict) {
    j = ncu_json(*p.table, *p.verdict, nh);
    if (!p.hot_lines_reader.empty()) j["hot_lines_reader"] = p.hot_lines_reader;
    if (p.hot_lines_read_s) j["hot_lines_read_s"] = *p.hot_lines_read_s;
    j["roofline"] = p.roofline;
    j["assessment_notes"] = p.notes;
  } else {
    j = {{"ncu", nullptr}, {"timing", nh.timing ? timing_json(*nh.timing) : nlohmann::json(nullptr)}};
  }
  j["schema_version"] = kReportSchemaVersion;
  j["header"] = nlohmann::json::object();
  for (const auto& [k, v] : nh.rows)
    if (!header_row_is_typed_elsewhere(k)) j["header"][k] = v;
  j["inputs"] = inputs_json(p);
  j["classified"] = p.classified;
  j["failure"] = p.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.failure);
  j["hint"] = p.hint;
  static const NcuRunResult kNotRun;
  const NcuRunResult& n = p.ncu ? *p.ncu : kNotRun;
  j["ncu_run"] = {{"command", shell_join(n.command)},
                  {"replay_passes", n.replay_passes},
                  {"wall_s", n.wall_s},
                  {"export_wall_s", n.export_wall_s},
                  {"metrics_from", n.metrics_from_report ? "ncu_report" : "csv_export"},
                  {"report", n.report_path},
                  {"source_counters", p.source_counters},
                  {"profiled_kernels", n.profiled},
                  {"session_versions", n.session_versions},
                  {"nvtx_range", n.nvtx_range},
                  {"started_in_standby", n.started_in_standby}};
  j["summary"] = p.summary;
  return j;
}

}  // namespace kprof
