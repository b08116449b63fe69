// One request in, one outcome out (issue 47): a command's outcome document, written to the file
// the parent names ($KPROF_OUTCOME_FILE) when the command ends. It holds the exit code, the JSON
// report the command answers with (its path and its content, as written) and the last error with
// its hint, so the parent finds nothing by a file name or a modification time.
//   {"schema_version": 1, "kprof_version", "command", "exit_code",
//    "report": {"path", "content"} | null, "error": {"message", "hint"} | null,
//    "results": what an internal child hands its parent | null}
// The internal children (__runner, __session, __worker, __check, __probe) write one too, to the
// file their parent names for each of them: core/subprocess.hpp run_process never passes its own
// $KPROF_OUTCOME_FILE on, so a child writes only where its parent asked.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kprof {

/// Records the JSON report just written to `path` (`json_text`, as written): the outcome's report.
/// The last one recorded wins (kprof run writes each version's profile.json, then comparison.json).
void note_report(const std::string& path, const std::string& json_text);

/// Records the last error printed (core/term.hpp print_error calls it).
void note_error(const std::string& message, const std::string& hint);

/// Records the typed results an internal child hands its parent (the outcome's "results": the
/// session's versions, the worker's units, ...). The last one recorded wins.
void note_results(const nlohmann::json& results);

/// The variable that names the outcome document's file.
inline constexpr const char* kOutcomeFileVar = "KPROF_OUTCOME_FILE";

/// The outcome document of this process so far, for `command` ending with `exit_code`.
std::string outcome_json(const std::string& command, int exit_code);

/// Writes outcome_json to `file` whole (a temporary file renamed over it). False when it cannot be
/// written (the parent then reports the missing outcome).
bool write_outcome(const std::string& file, const std::string& command, int exit_code);

/// Writes the outcome so far to $KPROF_OUTCOME_FILE (when set) with exit code -1, "not ended": a
/// long child's results (a worker's units) survive its crash; its final outcome replaces it.
/// False when none was written.
bool checkpoint_outcome(const std::string& command);

/// Forgets what was recorded (tests).
void reset_outcome();

/// An outcome document as the parent reads it back.
struct ChildOutcome {
  bool found = false;   ///< the file held an outcome document (false: none written, or not one)
  std::string problem;  ///< why not, when !found ("no outcome document ...")
  std::string command;  ///< the command that wrote it
  int exit_code = -1;
  std::string report_path;  ///< "" when it named no report
  nlohmann::json report;    ///< the report's content as written (null when none)
  std::string error, hint;  ///< its last error ("" when none)
  nlohmann::json results;   ///< an internal child's results (null when none)
};

/// Reads the outcome document `file` (the one the parent named). Never throws: a missing or
/// malformed file is `found == false` with `problem` saying which.
ChildOutcome read_outcome(const std::string& file);

}  // namespace kprof
