// Values an ncu export cannot hold: flagged and removed before classification, so a corrupt or
// edited export (an SOL of -50%, an infinite duration) never decides a class.
#pragma once

#include <string>
#include <vector>

#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// How far above 100% a percentage of peak or a hit rate may read before it is impossible:
/// ncu's own values reach 101.8% (lts__t_sector_op_write_hit_rate.pct of tests/data/ncu/tiny.raw.csv:
/// counters sampled at slightly different times). In percentage points.
inline constexpr double kPercentMargin = 5.0;

/// How far below 0 a percentage may read before it is impossible: ncu's own derived percentages
/// read slightly negative from counter noise (-0.0055% for
/// sm__pipe_tensor_type_hmma_..._cycles_active.min.pct_of_peak_sustained_elapsed in
/// tests/data/ncurep/divergent.ncu-rep, H200). In percentage points.
inline constexpr double kNegativePercentNoise = 1.0;

/// One value outside its metric's range.
struct InvalidValue {
  std::string metric;  ///< ncu metric name
  std::string raw;     ///< the cell as written
  std::string unit;    ///< its unit as written
  std::string why;     ///< "a percentage above 105%", "negative", "not a finite number"
};

/// Checks every metric of `k` and removes (value = nullopt) those that cannot be: a number that is
/// not finite ("inf", 1e999); a negative value of a quantity with a unit (time, bytes, cycles,
/// counts, rates; a percentage below -kNegativePercentNoise); a percentage above 100% + kPercentMargin for metrics that are a
/// share of a whole (unit "%" and "pct" in the name), except per-unit maxima (".max.") and ncu's
/// derived__ tables, which legitimately exceed 100%. Returns what was removed, by metric name.
std::vector<InvalidValue> drop_invalid_values(KernelMetrics& k);

/// "sm__throughput.avg.pct_of_peak_sustained_elapsed = -50 %: negative".
std::string describe(const InvalidValue& v);

}  // namespace kprof
