// Renderers for `kprof env`: env_check.md, env_check.json and the summary printed on stdout
// (flows/report_files.hpp writes the files).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "stages/env/readiness.hpp"

namespace kprof {

/// env_check.md: result, the item table (required ones marked), the implementation table, the
/// GPU's properties and clocks, tools, Python packages, CUTLASS, CUDA_* variables.
std::string env_markdown(const EnvReport& r);

/// env_check.json: the same content, machine-readable (schema "kprof.env/1"; sizes in bytes,
/// clocks in MHz, CUDA versions as "13.0").
nlohmann::json env_json(const EnvReport& r);

/// The human-readable summary for stdout: one line per item (why and what to do under the
/// failed ones), the implementations, the verdict. Styled with core/term.hpp when `color`.
std::string env_summary(const EnvReport& r, bool color);

/// `path` with its extension replaced by ".json" (env_check.md -> env_check.json).
std::string json_path_for(const std::string& md_path);

}  // namespace kprof
