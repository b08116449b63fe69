#include "stages/ncu/metric_table.hpp"

#include <cmath>
#include <sstream>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stages/ncu/csv.hpp"

namespace kprof {

namespace {

/// Time unit -> seconds, or 0 when `tok` is not a time unit.
double seconds_of(const std::string& tok) {
  if (tok == "ns" || tok == "nsecond" || tok == "nsec") return 1e-9;
  if (tok == "us" || tok == "usecond" || tok == "usec") return 1e-6;
  if (tok == "ms" || tok == "msecond" || tok == "msec") return 1e-3;
  if (tok == "s" || tok == "second" || tok == "sec") return 1.0;
  return 0.0;
}

/// Data unit -> bytes (ncu's prefixes are powers of 1000), or 0 when not a data unit.
double bytes_of(const std::string& tok) {
  if (tok == "byte" || tok == "bytes") return 1.0;
  if (tok == "Kbyte") return 1e3;
  if (tok == "Mbyte") return 1e6;
  if (tok == "Gbyte") return 1e9;
  if (tok == "Tbyte") return 1e12;
  if (tok == "Pbyte") return 1e15;
  return 0.0;
}

/// Frequency unit -> Hz ("Ghz", "Mhz", "Khz", "hz", any case), or 0 when not a frequency.
double hertz_of(const std::string& tok) {
  std::string t = to_lower(tok);
  if (t == "hz") return 1.0;
  if (t == "khz") return 1e3;
  if (t == "mhz") return 1e6;
  if (t == "ghz") return 1e9;
  if (t == "thz") return 1e12;
  return 0.0;
}

}  // namespace

NormalizedUnit normalize_unit(const std::string& raw_unit) {
  std::string unit = trim(raw_unit);
  if (unit.empty()) return {1.0, ""};
  size_t slash = unit.find('/');
  std::string num = slash == std::string::npos ? unit : unit.substr(0, slash);
  std::string den = slash == std::string::npos ? "" : unit.substr(slash + 1);
  if (den.find('/') != std::string::npos) return {1.0, unit};  // not a form kprof knows

  NormalizedUnit out;
  std::string num_base = num;
  if (double s = seconds_of(num)) {
    out.factor = s * 1e9;
    num_base = "ns";
  } else if (double b = bytes_of(num)) {
    out.factor = b;
    num_base = "byte";
  } else if (double h = hertz_of(num)) {
    out.factor = h;
    num_base = "Hz";
  }
  if (den.empty()) {
    out.unit = num_base;
    return out;
  }
  std::string den_base = den;
  if (double s = seconds_of(den)) {
    out.factor /= s;
    den_base = "s";
    if (num_base == "cycle") {
      out.unit = "Hz";
      return out;
    }
  } else if (double b = bytes_of(den)) {
    out.factor /= b;
    den_base = "byte";
  }
  out.unit = num_base + "/" + den_base;
  return out;
}

std::optional<double> KernelMetrics::number(const std::string& metric) const {
  auto it = metrics.find(metric);
  if (it == metrics.end()) return std::nullopt;
  return it->second.value;
}

std::string KernelMetrics::text(const std::string& metric) const {
  auto it = metrics.find(metric);
  return it == metrics.end() ? std::string() : it->second.raw;
}

void KernelMetrics::set(const std::string& metric, double value, const std::string& unit) {
  MetricValue& v = metrics[metric];
  v.raw = fmt_sig(value, 10);
  v.raw_unit = unit;
  v.unit = unit;
  v.value = std::isnan(value) ? std::nullopt : std::optional<double>(value);
}

std::string KernelMetrics::short_name() const {
  size_t p = name.find('(');
  return trim(p == std::string::npos ? name : name.substr(0, p));
}

}  // namespace kprof
