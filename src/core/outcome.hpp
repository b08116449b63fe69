// One request in, one outcome out (issue 47): a command's outcome document, written to the file
// the parent names ($KPROF_OUTCOME_FILE) when the command ends. It holds the exit code, the JSON
// report the command answers with (its path and its content, as written) and the last error with
// its hint, so the parent finds nothing by a file name or a modification time.
//   {"schema_version": 1, "kprof_version", "command", "exit_code",
//    "report": {"path", "content"} | null, "error": {"message", "hint"} | null}
#pragma once

#include <string>

namespace kprof {

/// Records the JSON report just written to `path` (`json_text`, as written): the outcome's report.
/// The last one recorded wins (kprof run writes each version's profile.json, then comparison.json).
void note_report(const std::string& path, const std::string& json_text);

/// Records the last error printed (core/term.hpp print_error calls it).
void note_error(const std::string& message, const std::string& hint);

/// The outcome document of this process so far, for `command` ending with `exit_code`.
std::string outcome_json(const std::string& command, int exit_code);

/// Writes outcome_json to `file` whole (a temporary file renamed over it). False when it cannot be
/// written (the parent then reports the missing outcome).
bool write_outcome(const std::string& file, const std::string& command, int exit_code);

/// Forgets what was recorded (tests).
void reset_outcome();

}  // namespace kprof
