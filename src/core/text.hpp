// Small text helpers shared by the report writers and parsers.
#pragma once

#include <optional>
#include <cstdint>
#include <string>
#include <vector>

namespace kprof {

/// Removes leading and trailing whitespace.
std::string trim(const std::string& s);

/// 64-bit FNV-1a continued over `piece` (start from kFnvOffset); a separator byte follows each
/// piece, so ("ab","c") and ("a","bc") hash differently. For cache keys, not for security.
inline constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
void fnv1a(uint64_t& h, const std::string& piece);

/// Splits on `sep`; keeps empty fields.
std::vector<std::string> split(const std::string& s, char sep);

/// True when `s` begins / ends with `prefix` / `suffix`.
bool starts_with(const std::string& s, const std::string& prefix);
bool ends_with(const std::string& s, const std::string& suffix);

/// Lower-case ASCII copy.
std::string to_lower(std::string s);

/// Levenshtein distance between `a` and `b` (insertions, deletions, substitutions; bytes).
size_t edit_distance(const std::string& a, const std::string& b);

/// One line for a table cell from a multi-line message (nvcc's log, a Python traceback): its first
/// line, plus the first later line that mentions "error" (any case), cut to `max_len` characters
/// (ending in "..." when cut).
std::string one_line_summary(const std::string& message, size_t max_len = 300);

/// Parses a number the way ncu prints it: thousands separators ("524,288"), surrounding blanks;
/// returns nullopt for "", "n/a", "N/A", "nan" and anything that is not a number.
std::optional<double> parse_number(const std::string& s);

/// `text` as one Markdown code span (CommonMark): fenced by one more backtick than its longest run
/// of backticks, padded with a space when it starts or ends with one, so SASS such as
/// "BRA `(.L_x_0)" shows as written. "" stays "".
std::string md_code_span(const std::string& text);

/// A Markdown table: header row, separator, one line per row; '|' in cells is escaped.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

/// Formats a value with `digits` significant digits ("%.*g"), "n/a" for NaN.
std::string fmt_sig(double v, int digits = 4);

/// Formats a duration given in milliseconds with a readable unit: "812 ns", "12.3 us", "4.56 ms", "1.2 s".
std::string fmt_duration_ms(double ms);

/// Formats a byte count with binary units: "512 B", "4.00 KiB", "256 MiB", "1.50 GiB".
std::string fmt_bytes(double bytes);

/// A kernel name short enough for a heading or a table cell: drops a leading "void ", the
/// parameter list and template arguments ("void Kernel<Gemm<...>>(Params)" -> "Kernel<...>"),
/// and cuts what remains to `max_len` characters with "...". Full names stay in details and JSON.
std::string display_kernel_name(const std::string& name, size_t max_len = 60);

/// The current local time as "YYYY-MM-DD HH:MM:SS TZ".
std::string now_string();

/// True when `s` is valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_utf8(const std::string& s);

/// `s` with every byte that is not part of valid UTF-8 written as the four characters `\xff`
/// (lower-case hex, as Python's "backslashreplace" writes it), valid UTF-8 kept as it is: THE way
/// foreign bytes (a Latin-1 kernel name, a path with 0xFF, embedded source in another encoding)
/// reach every report, JSON, Markdown and the page alike, so a report is always valid UTF-8.
/// With `json_text` the backslash is doubled (`\\xff`): for bytes inside the strings of JSON text,
/// which then parses to the same `\xff`.
std::string escape_foreign_bytes(const std::string& s, bool json_text = false);

/// The demangled form of a C++ symbol (abi::__cxa_demangle), or `name` unchanged when it is not
/// a mangled name (Triton kernels, extern "C" kernels).
std::string demangle(const std::string& name);

}  // namespace kprof
