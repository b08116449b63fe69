// The typed results of scaled runs (stages/results/units.hpp) as JSON (one file per unit, the
// unit list units.json) and the merged reports of a sweep or a multi-GPU run: comparison.md /
// comparison.json (one table per size, "class and % of bound by size" per version) and the data of
// sweep.svg (time and % of bound against size per version).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "report/schema.hpp"
#include "stages/results/units.hpp"

namespace kprof {

/// {"version", "version_index", "kernel", "dims": {name: value text}, "key"}.
void to_json(nlohmann::json& j, const Unit& u);
/// Reads what to_json wrote. Throws nlohmann::json::exception on a wrong type.
void from_json(const nlohmann::json& j, Unit& u);

/// A unit's result file: {"schema_version": 2, "unit", "status" (unit_status_id), "reason",
/// "place": {host, gpu_name, gpu_uuid, gpu_visible, driver, ncu_version, sm_mhz, mem_mhz,
/// sm_max_mhz}, "row" (report/comparison.hpp's VersionRow JSON), "written_by" ("worker" |
/// "orchestrator"), "date"}.
void to_json(nlohmann::json& j, const UnitResult& r);
/// Reads what to_json wrote. Throws Error (exit 2) for an unknown status or schema_version < 2,
/// nlohmann::json::exception on a wrong type.
void from_json(const nlohmann::json& j, UnitResult& r);

/// "ok", or "<status>: <reason>" ("wrong: C: 12 of 1024 elements differ").
std::string unit_status_text(const UnitResult& r);

/// The GPU cell of a row: "NVIDIA H200 (GPU-5f0c1a2b)", the visible index when the UUID is
/// unknown, "unknown" when nothing is.
std::string unit_gpu_text(const UnitPlace& p);

/// The merged comparison.md: header (axes, GPUs, units ok / total, warnings), per point the table
/// of its versions (status, GPU, median ± std, speedup and verdict against the first version,
/// class, % of bound, top finding), then per version "class and % of bound by size", and the
/// chart when `chart` names one.
std::string units_markdown(const MergedUnits& m, const std::vector<std::string>& axes,
                           const std::vector<std::pair<std::string, std::string>>& header, const std::string& chart);

/// The same as JSON: {"schema_version", "header", "axes", "warnings", "points": [{key, dims,
/// time_basis, units: [unit result + "comparison"]}], "versions": [rows]}. "versions" holds every
/// unit's row named "<version>/<key>" (plain "<version>" when there is one point), so `kprof
/// compare` pairs two sweeps unit by unit.
nlohmann::json units_json(const MergedUnits& m, const std::vector<std::string>& axes,
                          const std::vector<std::pair<std::string, std::string>>& header);

/// The sweep chart's data: {"title", "x_label", "series": [{"label", "x": [...], "time_ms":
/// [...|null], "pct_of_bound": [...|null]}]}: one series per version (and per value of the other
/// axes), x = the first axis's value. Empty "series" when no unit has a time.
nlohmann::json sweep_chart_spec(const MergedUnits& m, const std::vector<std::string>& axes);

}  // namespace kprof
