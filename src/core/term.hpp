// Terminal output: colour on a terminal, plain text on a pipe or file.
#pragma once

#include <cstdio>
#include <string>

namespace kprof {

/// Text styles kprof uses on a terminal.
enum class Style { Plain, Bold, Ok, Warn, Fail, Dim };

/// True when `stream` (stdout or stderr) is a terminal and NO_COLOR is unset
/// (https://no-color.org); KPROF_COLOR=always forces colour, KPROF_COLOR=never disables it.
bool color_enabled(std::FILE* stream);

/// `text` wrapped in the ANSI codes for `style` when colour is enabled for `stream`, else as is.
std::string styled(const std::string& text, Style style, std::FILE* stream = stdout);

/// Prints "error: <message>" and, when given, "  hint: <hint>" to stderr (red on a terminal).
/// Under $KPROF_ERROR_FILE it also appends {"message", "hint"} as one JSON line to that file
/// (the Python API raises kprof.UsageError with the last one).
void print_error(const std::string& message, const std::string& hint = {});

/// Prints "warning: <message>" to stderr (yellow on a terminal).
void print_warning(const std::string& message);

/// Prints one progress line to stderr ("[kprof] <message>"), so stdout stays clean for --json.
void print_progress(const std::string& message);

}  // namespace kprof
