#include "core/trace.hpp"
#include "core/json_text.hpp"
#include "core/term.hpp"

#include "core/outcome.hpp"
#include "core/settings.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

namespace kprof {

bool color_enabled(std::FILE* stream) {
  const Settings& s = settings();
  if (s.color == "always") return true;
  if (s.color == "never") return false;
  if (s.no_color) return false;
  return ::isatty(::fileno(stream)) != 0;
}

std::string styled(const std::string& text, Style style, std::FILE* stream) {
  if (style == Style::Plain || !color_enabled(stream)) return text;
  const char* code = "";
  switch (style) {
    case Style::Bold:
      code = "\033[1m";
      break;
    case Style::Ok:
      code = "\033[32m";
      break;
    case Style::Warn:
      code = "\033[33m";
      break;
    case Style::Fail:
      code = "\033[31;1m";
      break;
    case Style::Dim:
      code = "\033[2m";
      break;
    case Style::Plain:
      break;
  }
  return std::string(code) + text + "\033[0m";
}

void print_error(const std::string& message, const std::string& hint) {
  trace_event("error: " + message);
  note_error(message, hint);
  if (const std::string& path = settings().error_file; !path.empty()) {
    // One JSON line per error for the Python API (python/kprof/_child.py), which reads the last one.
    std::string line = json_text(nlohmann::json{{"message", message}, {"hint", hint}}, -1) + "\n";
    if (std::FILE* f = std::fopen(path.c_str(), "a")) {
      std::fputs(line.c_str(), f);
      std::fclose(f);
    }
  }
  // One write: a progress line of another thread (the environment check) never splits error and hint.
  std::string text = styled("error:", Style::Fail, stderr) + " " + message + "\n";
  if (!hint.empty()) text += "  " + styled("hint:", Style::Bold, stderr) + " " + hint + "\n";
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

void print_warning(const std::string& message) {
  std::fprintf(stderr, "%s %s\n", styled("warning:", Style::Warn, stderr).c_str(), message.c_str());
  std::fflush(stderr);
}

void print_progress(const std::string& message) {
  trace_event("progress: " + message);
  std::fprintf(stderr, "%s %s\n", styled("[kprof]", Style::Dim, stderr).c_str(), message.c_str());
  std::fflush(stderr);
}

}  // namespace kprof
