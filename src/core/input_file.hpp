// Reading a report the user names, bounded (issue 50): a device that never ends is refused, a
// FIFO or pipe is read with a deadline, and no file beyond a named limit is read.
#pragma once

#include <memory>
#include <string>

namespace kprof {

class ScratchFile;

/// A report file ready to be read whole by path.
struct ReportInput {
  std::string path;                      ///< the file to read: the user's, or a scratch copy of a stream
  std::shared_ptr<ScratchFile> scratch;  ///< holds the copy of a FIFO or pipe (removed when the last owner goes)
};

/// Prepares `path` for reading: a regular file is read where it is, when it is no larger than
/// settings().max_input_bytes (KPROF_MAX_INPUT_BYTES); a FIFO, pipe or socket (a named pipe,
/// /dev/stdin, /proc/self/fd/N) is copied into a scratch file (keeping `suffix`, e.g. ".csv"),
/// waiting at most settings().input_wait_s (KPROF_INPUT_WAIT_S) for its writer and for each next
/// piece, and at most max_input_bytes. Throws usage_error (exit 2) naming the file for: a
/// character or block device (/dev/zero never ends), a stream silent past its deadline, a file
/// or stream above the limit (with the variable that raises it). A missing path or a folder is
/// returned as it is: the reader says what is wrong with it.
ReportInput prepare_report_input(const std::string& path, const std::string& suffix);

}  // namespace kprof
