// The version of the shape of kprof's JSON reports (README.md "JSON reports" lists the changes).
#pragma once

namespace kprof {

/// The "schema_version" of every JSON report kprof writes (env_check.json, correctness.json,
/// profile.json, analysis.json, comparison.json): 2 = typed values (status ids, numbers with
/// units, per-call samples) instead of formatted text. Files without the field are version 1.
inline constexpr int kReportSchemaVersion = 2;

}  // namespace kprof
