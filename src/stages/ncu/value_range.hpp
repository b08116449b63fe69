// Values an ncu export cannot hold: flagged and removed before classification, so a corrupt or
// edited export (an SOL of -50%, an SOL column in msecond, an infinite duration, a stall ratio of
// 1e299) never decides a class. One check by what a value means (the catalog's ValueKind column,
// stages/ncu/metrics.hpp), not by its unit string.
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

/// Above this no count, byte total, rate or clock of one launch can read: ncu's counters are 64-bit
/// (at most 1.8e19), and no GPU moves 1e20 bytes per second. Far above any real value.
inline constexpr double kCounterCeiling = 1e20;

/// One value outside its metric's range.
struct InvalidValue {
  std::string metric;  ///< ncu metric name
  std::string raw;     ///< the cell as written
  std::string unit;    ///< its unit as written
  std::string why;     ///< "negative", "not a finite number", "in \"msecond\" where \"%\" is expected"
};

/// Checks every metric of `k` and removes (value = nullopt) those that cannot be:
/// - any value: not finite ("inf", 1e999), or above kCounterCeiling (a share of peak aside);
/// - a catalog metric (primary or fallback name): its unit must be of its catalog unit's kind
///   (a "%" metric in "%"; a time in a time unit, bytes in a data unit...; ncu's scaled units such
///   as usecond, Kbyte, Gbyte/second are read), else the value is refused rather than read with a
///   factor of 1; then its ValueKind: Share in [-kNegativePercentNoise, 100 + kPercentMargin],
///   Positive > 0, CyclesPerIssue >= 1, NonNegative >= 0;
/// - another metric: negative with a unit (a percentage below -kNegativePercentNoise), or a share
///   of a whole (unit "%" and "pct" in the name) above 100% + kPercentMargin, except per-unit
///   maxima (".max.") and ncu's derived__ tables, which legitimately exceed 100%; a share of peak
///   by its name (".pct_of_peak") in any unit but "%" (every real export writes them in "%");
/// - any value: a subnormal number (non-zero, below 2.2e-308), which no export holds;
/// - the duration (gpu__time_duration.sum) more than 10 times off the time its elapsed cycles
///   take at its clock (gpc__cycles_elapsed.max / gpc__cycles_elapsed.avg.per_second; within 1.3%
///   in every export of tests/data): a duration in ns written "second" passes the checks of its
///   kind, not this one.
/// A percentage kept that is below 0 (ncu's counter noise, down to -kNegativePercentNoise) is read
/// as 0, so no negative share is printed. Returns what was removed, by metric name.
std::vector<InvalidValue> drop_invalid_values(KernelMetrics& k);

/// "sm__throughput.avg.pct_of_peak_sustained_elapsed = -50 %: negative".
std::string describe(const InvalidValue& v);

}  // namespace kprof
