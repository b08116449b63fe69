#include "core/text.hpp"

#include <cxxabi.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace kprof {

void fnv1a(uint64_t& h, const std::string& piece) {
  for (unsigned char c : piece) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= 0xff;
  h *= 1099511628211ULL;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::optional<double> parse_number(const std::string& raw) {
  std::string s;
  for (char c : trim(raw))
    if (c != ',') s += c;
  if (s.empty()) return std::nullopt;
  std::string low = to_lower(s);
  if (low == "n/a" || low == "nan" || low == "-nan" || low == "-") return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || std::isnan(v)) return std::nullopt;
  return v;
}

std::string md_code_span(const std::string& text) {
  if (text.empty()) return "";
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = text.front() == '`' || text.back() == '`';
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  auto cell = [](const std::string& c) {
    std::string o;
    for (char ch : c) {
      if (ch == '|')
        o += "\\|";
      else if (ch == '\n')
        o += ' ';
      else
        o += ch;
    }
    return o;
  };
  std::string out = "|";
  for (const auto& h : header) out += " " + cell(h) + " |";
  out += "\n|";
  for (size_t i = 0; i < header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (size_t i = 0; i < header.size(); ++i) out += " " + (i < r.size() ? cell(r[i]) : std::string()) + " |";
    out += "\n";
  }
  return out;
}

std::string fmt_sig(double v, int digits) {
  if (std::isnan(v)) return "n/a";
  return fmt::format("{:.{}g}", v, digits);
}

std::string fmt_duration_ms(double ms) {
  if (std::isnan(ms)) return "n/a";
  double a = std::fabs(ms);
  if (a < 1e-3) return fmt::format("{:.0f} ns", ms * 1e6);
  if (a < 1.0) return fmt::format("{:.3g} us", ms * 1e3);
  if (a < 1000.0) return fmt::format("{:.3g} ms", ms);
  return fmt::format("{:.3g} s", ms / 1e3);
}

std::string fmt_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  if (u == 0) return fmt::format("{:.0f} B", bytes);
  return fmt::format("{:.2f} {}", bytes, units[u]);
}

std::string display_kernel_name(const std::string& full, size_t max_len) {
  std::string s = trim(full);
  if (starts_with(s, "void ")) s = s.substr(5);
  size_t paren = s.find('(');
  size_t angle = s.find('<');
  if (angle != std::string::npos && (paren == std::string::npos || angle < paren))
    s = s.substr(0, angle) + "<...>";
  else if (paren != std::string::npos)
    s = s.substr(0, paren);
  if (s.size() > max_len) s = s.substr(0, max_len > 3 ? max_len - 3 : 0) + "...";
  return s;
}

std::string now_string() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", &tm);
  return buf;
}

std::string one_line_summary(const std::string& message, size_t max_len) {
  auto lines = split(message, '\n');
  std::string out = lines.empty() ? message : trim(lines[0]);
  for (size_t i = 1; i < lines.size(); ++i)
    if (to_lower(lines[i]).find("error") != std::string::npos) {
      out += " " + trim(lines[i]);
      break;
    }
  if (out.size() > max_len && max_len > 3) out = out.substr(0, max_len - 3) + "...";
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) {
    std::free(out);
    return name;
  }
  std::string s(out);
  std::free(out);
  return s;
}

namespace {

/// Length of the valid UTF-8 sequence at s[i], or 0 when the byte there starts none.
size_t utf8_seq_len(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  unsigned char c1 = b(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
    return 0;  // overlong, surrogate, above U+10FFFF
  return n;
}

}  // namespace

bool is_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq_len(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_foreign_bytes(const std::string& s, bool json_text) {
  if (is_utf8(s)) return s;
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_seq_len(s, i);
    if (n > 0) {
      out.append(s, i, n);
      i += n;
      continue;
    }
    auto c = static_cast<unsigned char>(s[i++]);
    out += json_text ? "\\\\x" : "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

}  // namespace kprof
