#include "stages/analysis/format.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/text.hpp"

namespace kprof {

std::string format_si(double v, const std::string& unit) {
  if (std::isnan(v)) return "n/a";
  const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  double a = v;
  while (std::fabs(a) >= 1000.0 && p < 6) {
    a /= 1000.0;
    ++p;
  }
  return fmt::format("{} {}{}", fmt_sig(a, 3), prefixes[p], unit);
}

namespace {

std::string with_separators(double v) {
  std::string digits = fmt::format("{:.0f}", std::fabs(v));
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out += digits[static_cast<size_t>(i)];
    if ((n - 1 - i) % 3 == 0 && i != n - 1) out += ',';
  }
  return (v < 0 ? "-" : "") + out;
}

}  // namespace

std::string format_value(double v, const std::string& unit) {
  if (std::isnan(v)) return "n/a";
  if (unit == "%") return fmt_sig(v, 3) + "%";
  if (unit == "ns") return fmt_duration_ms(v / 1e6);
  if (unit == "byte") return format_si(v, "B");
  if (unit == "byte/s") return format_si(v, "B/s");
  if (unit == "Hz") return format_si(v, "Hz");
  std::string number;
  double a = std::fabs(v);
  if (a < 1e15 && ((a >= 1000.0 && v == std::floor(v)) || a >= 1e5))
    number = with_separators(std::round(v));
  else
    number = fmt_sig(v, 4);
  return unit.empty() ? number : number + " " + unit;
}

std::string format_optional(const std::optional<double>& v, const std::string& unit) {
  return v ? format_value(*v, unit) : std::string("not collected");
}

}  // namespace kprof
