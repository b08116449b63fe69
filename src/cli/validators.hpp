// CLI11 validators with plain messages ("must be greater than 0, got 0"): CLI11's own
// PositiveNumber / NonNegativeNumber print their range with DBL_MAX written out in 300 digits.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "core/text.hpp"

namespace kprof {

/// A number > 0 (seconds, counts). Empty string when valid, else the message CLI11 shows.
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        auto v = parse_number(s);
        if (!v) return "must be a number, got '" + s + "'";
        return *v > 0 ? std::string() : "must be greater than 0, got " + s;
      },
      "> 0", "POSITIVE");
}

/// A number >= 0 (indices, tolerances, warm-up counts).
inline CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        auto v = parse_number(s);
        if (!v) return "must be a number, got '" + s + "'";
        return *v >= 0 ? std::string() : "must be 0 or more, got " + s;
      },
      ">= 0", "NONNEGATIVE");
}

}  // namespace kprof
