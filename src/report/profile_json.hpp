// profile.json (schema_version kReportSchemaVersion), rendered from typed values: the ncu part
// (report/ncu_report.hpp ncu_json) or the timing alone, the header rows, the ncu run and the
// headline "summary" (the VersionRow `kprof compare` reads). The profile flow fills ProfileJson.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/dims.hpp"
#include "device/buffer_view.hpp"
#include "report/ncu_report.hpp"
#include "stages/results/versions.hpp"
#include "stages/ncu/runner.hpp"

namespace kprof {

/// What profile.json holds beyond the header (`NcuReportHeader`, its timing included).
struct ProfileJson {
  bool classified = false;
  const MetricTable* table = nullptr;    ///< the ncu metrics (classified only)
  const CallVerdict* verdict = nullptr;  ///< their verdict (classified only)
  std::string failure;                   ///< why not classified ("" when classified)
  std::string hint;
  const NcuRunResult* ncu = nullptr;       ///< the ncu run (nullptr: not run)
  bool source_counters = false;            ///< the source-level data was asked for
  std::string hot_lines_reader;            ///< where ncu_report came from ("" when not read)
  std::optional<double> hot_lines_read_s;  ///< seconds the one read of the .ncu-rep took
  std::string roofline;                    ///< roofline.svg's path, or why it was not written
  std::vector<std::string> notes;          ///< what the assessment could not do
  VersionRow summary;                      ///< the headline row
  const Dims* dims = nullptr;              ///< the problem dimensions (nullptr: none recorded)
  std::optional<uint64_t> seed;            ///< the input seed
  std::vector<BufferView> buffers;         ///< the kernel's buffers (name, dtype, element count, role)
};

/// Header rows left out of profile.json's "header": formatted numbers whose typed values are
/// "timing" ("Execution time"), "ncu_run" ("ncu") and "inputs" ("Buffer NAME"). "Dimensions" (as
/// the user typed them) and "Seed" stay: `kprof compare` matches them across results, as in
/// comparison.json's header; their numbers are also in "inputs".
bool header_row_is_typed_elsewhere(const std::string& key);

/// profile.json's "inputs": {"dims": {NAME: number}, "seed": number or null, "buffers": [{"name",
/// "dtype", "count" (elements), "bytes", "output"}]}.
nlohmann::json inputs_json(const ProfileJson& p);

/// The whole profile.json object. The header's timing (when set) is "timing" in both forms; the
/// header's text rows are "header" (strings) except those typed elsewhere.
nlohmann::json profile_json(const ProfileJson& p, const NcuReportHeader& header);

}  // namespace kprof
