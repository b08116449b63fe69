// The NVML readings of the timing stage (stages/timing/timing.cpp): the SM clock record of the
// first pass, a background sampler per pass and the quick read after each call, and each pass's
// per-call windows turned into CallConditions. Read-only NVML queries only.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "stages/env/nvml.hpp"
#include "stages/timing/call_conditions.hpp"
#include "stages/timing/clock_sampler.hpp"
#include "stages/timing/timing_values.hpp"

namespace kprof {

/// NVML for one timing: without NVML every value stays unset and `c.note` says why.
class ClockReader {
 public:
  /// Reads the maximum SM clock and the power limit of GPU `gpu` into `c` (kept by reference).
  ClockReader(int gpu, SmClockRecord& c);
  /// The SM clock and the clock event reasons now (two NVML queries), also kept in the record.
  NvmlSample quick();
  /// A started background sampler (every kClockSamplePeriodMs), or nullptr without NVML.
  std::unique_ptr<BackgroundSampler> start_sampler() const;
  std::optional<double> power_limit_w() const { return power_limit_w_; }

 private:
  int gpu_;
  SmClockRecord& c_;
  Nvml* nvml_ = nullptr;
  std::optional<double> power_limit_w_;
};

/// One pass's per-call windows (ms in the sampler's time base) and post-call reads.
struct PassConditions {
  std::unique_ptr<BackgroundSampler> sampler;
  std::vector<SampleWindow> windows;
  std::vector<NvmlSample> after;
  /// Now in the sampler's time base (0 without a sampler).
  double now() const { return sampler ? sampler->ms_since_start() : 0; }
  /// Stops the sampler, summarises its samples into `summary` (when given) and returns one
  /// CallConditions per window (empty ones without a sampler).
  std::vector<CallConditions> finish(ClockSummary* summary, std::optional<double> power_limit);
};

}  // namespace kprof
