// The conditions a kernel was timed under: a thread samples NVML (SM and memory clock, power,
// clock event reasons, temperature) every few milliseconds WHILE the timed calls run, because
// readings taken between calls miss what happens inside them (on the H200 a cuBLAS
// GEMM's SM clock moved between 1410 and 1980 MHz within 100 back-to-back calls, with the SW
// power cap active in 18 of 74 samples). Only NVML queries are made, never a set call.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "stages/env/nvml.hpp"

namespace kprof {

/// One sample: NVML's readings and when they were taken (ms since the sampler started).
struct ClockSample {
  double t_ms = 0;
  NvmlSample v;
};

/// Range and mean of one sampled quantity (unset when no sample had it).
struct SampledRange {
  std::optional<double> min, max, mean;
  size_t n = 0;  ///< samples that had a value
};

/// What the samples of one timed phase show.
struct ClockSummary {
  size_t samples = 0;    ///< samples taken
  double span_ms = 0;    ///< time from the first to the last sample
  double period_ms = 0;  ///< the requested sampling period
  SampledRange sm_mhz, mem_mhz, power_w, temp_c;
  std::optional<double> power_limit_w;  ///< nvmlDeviceGetEnforcedPowerLimit, W
  /// Per clock event reason bit (nvml_reason_bits()): in how many samples it was set.
  std::map<uint64_t, size_t> reason_counts;
  size_t reason_samples = 0;  ///< samples that had a reasons mask
  size_t throttled = 0;       ///< samples whose mask throttles (nvml_reasons_throttle)
  std::string note;           ///< why nothing was sampled ("" when samples exist)
};

/// Summarises `samples` (pure: tests feed it synthetic samples). Means are plain averages over
/// the samples that had the value; the power limit is passed through.
ClockSummary summarize_clock_samples(const std::vector<ClockSample>& samples, double period_ms,
                                     std::optional<double> power_limit_w);

/// "SW power cap in 18 of 74 samples; GPU idle in 3 of 74" (throttling reasons first), or
/// "no clock event reason other than idle" / "clock event reasons not readable".
std::string reason_text(const ClockSummary& s);

/// Runs `read` on its own thread every `period_ms` between start() and stop(). Thread-safe in
/// that use; stop() joins (also from the destructor), after which samples() is stable.
class BackgroundSampler {
 public:
  /// `read` is called on the sampler thread; it must not throw.
  BackgroundSampler(std::function<NvmlSample()> read, double period_ms);
  ~BackgroundSampler();
  BackgroundSampler(const BackgroundSampler&) = delete;
  BackgroundSampler& operator=(const BackgroundSampler&) = delete;
  /// Starts the thread (takes one sample at once). A second start() without stop() is ignored.
  void start();
  /// Stops the thread after one last sample and joins it.
  void stop();
  /// The samples taken so far (call after stop()).
  const std::vector<ClockSample>& samples() const { return samples_; }
  double period_ms() const { return period_ms_; }
  /// Now, in the samples' time base (ms since start()); call after start().
  double ms_since_start() const;

 private:
  void loop();
  std::function<NvmlSample()> read_;
  double period_ms_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<ClockSample> samples_;
  std::chrono::steady_clock::time_point t0_{};
};

/// kprof's sampling period, ms: 2 ms (NVML answers in tens of microseconds; the GPU's own clock
/// decisions are made on a millisecond scale).
inline constexpr double kClockSamplePeriodMs = 2.0;

}  // namespace kprof
