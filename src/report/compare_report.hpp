// comparison.md / comparison.json / terminal summary of `kprof compare`, rendered from its
// CompareResult (stages/results/compare.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "stages/results/compare.hpp"

namespace kprof {

/// comparison.md of `kprof compare`: inputs, warnings, the version table, the headline changes, the gate.
std::string compare_markdown(const CompareResult& r);
/// The same as JSON (schema_version 2).
nlohmann::json compare_json(const CompareResult& r);
/// The terminal summary: the version table, the headline changes, the gate's verdict.
std::string compare_text(const CompareResult& r);

}  // namespace kprof
