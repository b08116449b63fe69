// CLI11 validators with plain messages ("must be an integer, got 'abc'", "must be between 1 and
// 1000, got 5000"): CLI11's own Range / PositiveNumber / NonNegativeNumber print their bounds as
// "1.000000 to 1000.000000" (or DBL_MAX written out in 300 digits) and say the same for a word
// that is not a number at all.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/text.hpp"

namespace kprof {

/// The bounds of a number option (api/options.hpp OptionRow's min, max, min_exclusive) and
/// whether it takes whole numbers only.
struct NumberRule {
  bool integer = false;            ///< an INT option: digits only ("12", "-3"), no "2.5" or "1e3"
  std::optional<double> min, max;  ///< inclusive bounds (min_exclusive: > min)
  bool min_exclusive = false;

  /// The value of `text` when it is a number of this kind, else nullopt.
  std::optional<double> read(const std::string& text) const {
    const std::string s = trim(text);
    if (s.empty()) return std::nullopt;
    if (integer) {
      const size_t start = s[0] == '-' || s[0] == '+' ? 1 : 0;
      if (start == s.size() || s.find_first_not_of("0123456789", start) != std::string::npos) return std::nullopt;
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
    return v;
  }

  /// "" when `text` is a valid value, else what is wrong ("must be an integer, got 'abc'").
  std::string problem(const std::string& text) const {
    const auto v = read(text);
    if (!v) return fmt::format("must be {}, got '{}'", integer ? "an integer" : "a number", text);
    const auto n = [](double x) { return fmt::format("{:g}", x); };
    if (min && max && (*v < *min || *v > *max))
      return fmt::format("must be between {} and {}, got {}", n(*min), n(*max), text);
    if (min && !max && min_exclusive && !(*v > *min))
      return fmt::format("must be greater than {}, got {}", n(*min), text);
    if (min && !max && !min_exclusive && *v < *min)
      return *min == 0 ? fmt::format("must be 0 or more, got {}", text)
                       : fmt::format("must be at least {}, got {}", n(*min), text);
    return "";
  }

  /// What --help shows after the type: " in [0 - 4095]", " > 0", " >= 0", "" (no bounds).
  std::string shown() const {
    const auto n = [](double x) { return fmt::format("{:g}", x); };
    if (min && max) return fmt::format(" in [{} - {}]", n(*min), n(*max));
    if (min) return fmt::format(" {} {}", min_exclusive ? ">" : ">=", n(*min));
    return "";
  }
};

/// The validator of `rule`: its message is problem()'s; it adds nothing to the type --help shows
/// (the caller names the type: add_table_option writes "INT in [0 - 4095]").
inline CLI::Validator number_validator(const NumberRule& rule) {
  return CLI::Validator([rule](std::string& s) { return rule.problem(s); }, "", "NUMBER");
}

/// A number >= 0 (indices, tolerances, warm-up counts) for an option outside the table.
inline CLI::Validator non_negative_number() {
  NumberRule r;
  r.min = 0;
  return number_validator(r);
}

}  // namespace kprof
