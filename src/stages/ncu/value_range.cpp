#include "stages/ncu/value_range.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <fmt/format.h>

#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

/// How far (a factor either way) a duration may be from the time its elapsed cycles take at its
/// clock: 10, where the exports of tests/data agree within 1.3%.
constexpr double kDurationCyclesFactor = 10.0;

/// The dimension of a normalised unit: "%", "time", "data", "freq", "data/time", "data/cycle";
/// "" for counts and ratios (inst, warp, cycle, "", branches, register/thread ...).
std::string dimension(const std::string& unit) {
  if (unit == "%") return "%";
  if (unit == "ns" || unit == "s") return "time";
  if (unit == "byte") return "data";
  if (unit == "Hz") return "freq";
  if (unit == "byte/s") return "data/time";
  if (unit == "byte/cycle") return "data/cycle";
  if (unit.find('%') != std::string::npos) return "%";
  return "";
}

/// Why `v` (a catalog metric `spec`) cannot be, or "".
std::string catalog_problem(const MetricSpec& spec, const MetricValue& v, double x) {
  const std::string want = dimension(spec.unit), got = dimension(v.unit);
  if (want != got)
    return fmt::format("in \"{}\" where {} is expected", v.raw_unit,
                       spec.unit[0] ? "\"" + std::string(spec.unit) + "\"" : "a count");
  ValueKind kind = spec.kind;
  if (kind == ValueKind::ByUnit) kind = want == "%" ? ValueKind::Share : ValueKind::NonNegative;
  switch (kind) {
    case ValueKind::Share:
      if (x < -kNegativePercentNoise) return "a negative share of peak";
      if (x > 100.0 + kPercentMargin) return fmt::format("a share of peak above {:g}%", 100.0 + kPercentMargin);
      return "";
    case ValueKind::Positive:
      if (x <= 0) return "not positive (a launch takes time and cycles)";
      break;
    case ValueKind::CyclesPerIssue:
      if (x < 1.0) return "below 1 cycle per issued instruction";
      break;
    default:
      if (x < 0) return "negative";
  }
  if (x > kCounterCeiling) return fmt::format("above {:g}, more than any counter can hold", kCounterCeiling);
  return "";
}

/// Why `v` (not in the catalog) cannot be, or "".
std::string other_problem(const std::string& name, const MetricValue& v, double x) {
  if (name.find(".pct_of_peak") != std::string::npos && dimension(v.unit) != "%")
    return fmt::format("in \"{}\" where \"%\" is expected (a share of peak)", v.raw_unit);
  if (!v.raw_unit.empty() && x < (v.raw_unit == "%" ? -kNegativePercentNoise : 0.0)) return "negative";
  if (v.raw_unit == "%" && name.find("pct") != std::string::npos && name.find(".max.") == std::string::npos &&
      name.rfind("derived__", 0) != 0 && x > 100.0 + kPercentMargin)
    return fmt::format("a share of a whole above {:g}%", 100.0 + kPercentMargin);
  if (v.raw_unit != "%" && std::fabs(x) > kCounterCeiling)
    return fmt::format("above {:g}, more than any counter can hold", kCounterCeiling);
  return "";
}

/// The launch's duration against the time its elapsed cycles take at its clock: more than
/// kDurationCyclesFactor off, it is dropped into `out` (value_range.hpp).
void check_duration_against_cycles(KernelMetrics& k, std::vector<InvalidValue>& out) {
  auto value = [&](const char* name) -> std::optional<double> {
    auto it = k.metrics.find(name);
    return it == k.metrics.end() ? std::nullopt : it->second.value;
  };
  const auto d = value(metric::kDuration), c = value(metric::kGpcCyclesMax), f = value(metric::kSmFreq);
  if (!d || !c || !f || !(*c > 0) || !(*f > 0)) return;
  const double expected_ns = *c / *f * 1e9;
  if (*d <= kDurationCyclesFactor * expected_ns && *d >= expected_ns / kDurationCyclesFactor) return;
  MetricValue& v = k.metrics[metric::kDuration];
  out.push_back(
      {metric::kDuration, trim(v.raw), v.raw_unit,
       fmt::format("{:.4g} ns, where its {:.4g} elapsed cycles at {:.4g} Hz take {:.4g} ns", *d, *c, *f, expected_ns)});
  v.value.reset();
}

}  // namespace

std::vector<InvalidValue> drop_invalid_values(KernelMetrics& k) {
  std::vector<InvalidValue> out;
  for (auto& [name, v] : k.metrics) {
    std::string why;
    if (!v.value) {
      if (auto x = parse_number(v.raw); x && !std::isfinite(*x)) why = "not a finite number";
    } else if (!std::isfinite(*v.value)) {
      why = "not a finite number";
    } else if (*v.value != 0 && std::fabs(*v.value) < std::numeric_limits<double>::min()) {
      why = "a subnormal number (below 2.2e-308): no value ncu writes is one";  // 5e-324 stalls gave 3e-323%
    } else if (const MetricSpec* spec = find_metric_or_fallback(name)) {
      why = catalog_problem(*spec, v, *v.value);
    } else {
      why = other_problem(name, v, *v.value);
    }
    if (why.empty()) {
      // A share a hair below 0 is ncu's counter noise: read as 0, so no negative SOL is printed.
      if (v.value && *v.value < 0 && dimension(v.unit) == "%") v.value = 0.0;
      continue;
    }
    out.push_back({name, trim(v.raw), v.raw_unit, why});
    v.value.reset();
  }
  check_duration_against_cycles(k, out);
  return out;
}

std::string describe(const InvalidValue& v) {
  return fmt::format("{} = {}{}: {}", v.metric, v.raw, v.unit.empty() ? "" : " " + v.unit, v.why);
}

}  // namespace kprof
