// A small RFC 4180 CSV reader for ncu's exports (`ncu --csv`): quoted fields may hold commas,
// doubled quotes ("") and line breaks; both "\n" and "\r\n" end a record.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// One CSV record: its fields, unquoted, in column order.
using CsvRecord = std::vector<std::string>;

/// Splits `text` into records. Empty lines are skipped. A quote left open at the end of the text
/// closes there (ncu never writes one; a truncated file then yields a short last record rather
/// than an exception). Never throws.
std::vector<CsvRecord> parse_csv(const std::string& text);

}  // namespace kprof
