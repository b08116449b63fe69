// A small RFC 4180 CSV reader for ncu's exports (`ncu --csv`): quoted fields may hold commas,
// doubled quotes ("") and line breaks; both "\n" and "\r\n" end a record.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace kprof {

/// One CSV record: its fields, unquoted, in column order.
using CsvRecord = std::vector<std::string>;

/// Reads records one at a time from a stream, through a fixed 1 MiB buffer: memory is one record,
/// whatever the file's size. Empty lines are skipped. A quote left open at the end of the input
/// closes there (ncu never writes one; a truncated file then yields a short last record). Lines
/// that start with "==" outside a quoted field (ncu's "==PROF==" / "==WARNING==" messages) are
/// skipped when `skip_messages`. Throws usage_error (exit 2) only for a record longer than
/// settings().max_line_bytes (KPROF_MAX_LINE_BYTES, core/settings.hpp): input that never ends a
/// line is refused, not held in memory.
class CsvReader {
 public:
  explicit CsvReader(std::istream& in, bool skip_messages = false);
  /// The next record into `rec` (cleared first); false at the end of the input.
  bool next(CsvRecord& rec);
  /// Bytes consumed so far (for progress).
  uint64_t bytes_read() const { return consumed_; }
  /// 1-based number of the physical line where the last record returned by next() started.
  uint64_t line() const { return record_line_; }

 private:
  bool fill();  ///< refills the buffer; false at end of input
  /// Appends `first` and the rest of its run (up to a quote or newline inside quotes; up to a
  /// separator, quote or line end outside) from the buffer to `field`.
  void append_run(std::string& field, char first, bool quoted);
  /// After a '=' at a record's start: when the next character is '=' too, drops the line.
  bool skip_message_line();
  std::istream& in_;
  bool skip_messages_;
  std::vector<char> buf_ = std::vector<char>(1 << 20);
  size_t pos_ = 0, len_ = 0;
  uint64_t consumed_ = 0, line_ = 1, record_line_ = 0;
  uint64_t record_start_ = 0;  ///< consumed_ where the record being read began
  uint64_t max_record_;        ///< settings().max_line_bytes
  void check_record_length() const;
};

/// Splits `text` into records (CsvReader over the text). Throws as CsvReader::next.
std::vector<CsvRecord> parse_csv(const std::string& text);

}  // namespace kprof
