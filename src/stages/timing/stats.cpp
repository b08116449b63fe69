#include "stages/timing/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kprof {

SampleStats summarize(const std::vector<double>& xs) {
  SampleStats s;
  s.n = xs.size();
  if (xs.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.median = s.mean = s.stddev = s.min = s.max = s.cv = nan;
    return s;
  }
  std::vector<double> v = xs;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = (n % 2 == 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(ss / static_cast<double>(n - 1)) : 0.0;
  s.cv = s.mean != 0 ? s.stddev / s.mean : (n > 1 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  return s;
}

bool is_unstable(const SampleStats& s, double threshold) {
  if (s.n < 2) return false;
  if (std::isnan(s.cv)) return true;
  return s.cv > threshold;
}

bool overhead_dominates(double kernel_ms, double call_ms) {
  if (std::isnan(kernel_ms) || std::isnan(call_ms) || call_ms <= 0) return false;
  return kernel_ms < kOverheadKernelShare * call_ms;
}

bool kernels_exceed_call(double kernel_busy_ms, double call_ms) {
  if (std::isnan(kernel_busy_ms) || std::isnan(call_ms)) return false;
  return kernel_busy_ms > call_ms * (1.0 + kEscapeMargin);
}

}  // namespace kprof
