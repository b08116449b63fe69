#include "stages/results/saved_run_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace kprof {

namespace {

/// Why a time `v` (ms) cannot be, or "".
std::string time_problem(double v) {
  if (!std::isfinite(v)) return "not a finite number";
  if (v <= 0) return "not positive";
  if (v < kMinTimeMs) return fmt::format("below {:g} ms, shorter than any kernel call", kMinTimeMs);
  return "";
}

double median_of(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

}  // namespace

void check_saved_times(const std::string& path, const VersionRow& row) {
  auto refuse = [&](const std::string& field, double v, const std::string& why) {
    return damaged_input(path, fmt::format("version {}: {} = {:g} is {}", row.name, field, v, why),
                         "a time that cannot be decides nothing: measure again (kprof run / kprof profile) "
                         "rather than edit the file");
  };
  const std::pair<const char*, const std::optional<double>*> times[] = {
      {"time_ms", &row.time_ms}, {"call_ms", &row.call_ms}, {"kernel_ms", &row.kernel_ms}};
  for (const auto& [field, t] : times)
    if (*t)
      if (auto why = time_problem(**t); !why.empty()) throw refuse(field, **t, why);
  const std::pair<const char*, const std::optional<double>*> spreads[] = {
      {"spread_ms", &row.spread_ms}, {"call_std_ms", &row.call_std_ms}, {"kernel_std_ms", &row.kernel_std_ms}};
  for (const auto& [field, s] : spreads)
    if (*s && (!std::isfinite(**s) || **s < 0)) throw refuse(field, **s, "not a standard deviation");
  struct Series {
    const char* field;
    const std::vector<double>* samples;
    const std::optional<double>* median;
    const char* median_field;
  };
  const Series series[] = {{"time_samples_ms", &row.time_samples_ms, &row.time_ms, "time_ms"},
                           {"call_samples_ms", &row.call_samples_ms, &row.call_ms, "call_ms"},
                           {"kernel_samples_ms", &row.kernel_samples_ms, &row.kernel_ms, "kernel_ms"}};
  for (const Series& s : series) {
    for (size_t i = 0; i < s.samples->size(); ++i)
      if (auto why = time_problem((*s.samples)[i]); !why.empty())
        throw refuse(fmt::format("{}[{}]", s.field, i), (*s.samples)[i], why);
    if (s.samples->empty() || !*s.median) continue;
    double m = median_of(*s.samples), stated = **s.median;
    if (std::fabs(m - stated) > kMedianTolerance * stated)
      throw damaged_input(path,
                          fmt::format("version {}: the median of {} is {:g} ms where {} states {:g} ms (the samples "
                                      "and the median do not come from the same calls)",
                                      row.name, s.field, m, s.median_field, stated),
                          "a time that cannot be decides nothing: measure again (kprof run / kprof profile) "
                          "rather than edit the file");
  }
}

std::string bound_samples(VersionRow& row) {
  size_t most = 0;
  for (std::vector<double>* s : {&row.time_samples_ms, &row.call_samples_ms, &row.kernel_samples_ms}) {
    most = std::max(most, s->size());
    if (s->size() <= kMaxComparedSamples) continue;
    std::sort(s->begin(), s->end());
    std::vector<double> kept(kMaxComparedSamples);
    const double step = static_cast<double>(s->size() - 1) / static_cast<double>(kMaxComparedSamples - 1);
    for (size_t i = 0; i < kMaxComparedSamples; ++i)
      kept[i] = (*s)[static_cast<size_t>(std::llround(static_cast<double>(i) * step))];
    *s = std::move(kept);
  }
  if (most <= kMaxComparedSamples) return "";
  return fmt::format("{}: {} samples per series, compared on {} evenly spaced in sorted order", row.name, most,
                     kMaxComparedSamples);
}

}  // namespace kprof
