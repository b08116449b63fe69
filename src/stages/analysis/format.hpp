// Formatting of metric values for the verdict and the reports.
#pragma once

#include <optional>
#include <string>

namespace kprof {

/// A value in kprof's base unit, readable: "%" -> "80.9%"; "ns" -> "132 us"; "byte" -> "268 MB"
/// (decimal prefixes, as ncu prints them); "byte/s" -> "3.89 TB/s"; "Hz" -> "1.98 GHz";
/// integral counts with thousands separators ("8,388,608 sector"); otherwise 4 significant
/// digits and the unit. NaN -> "n/a".
std::string format_value(double v, const std::string& unit);

/// format_value for an optional: "not collected" when empty.
std::string format_optional(const std::optional<double>& v, const std::string& unit);

/// `v` with decimal SI prefixes (k, M, G, T, P) and `unit`, 3 significant digits: "3.89 TB/s".
std::string format_si(double v, const std::string& unit);

}  // namespace kprof
