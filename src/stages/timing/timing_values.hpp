// The values the timing stage measures besides the times themselves: the SM clock record, the
// kernel pass's outcome, each call's clock conditions and what was discarded, the input rotation
// and the memoization check. Apart from timing.hpp so that the stage's pieces (call_conditions,
// clock_reader, integrity) include these, not the stage that includes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stages/timing/attribution.hpp"
#include "stages/timing/noise.hpp"

namespace kprof {

/// SM clock seen by NVML (nvmlDeviceGetClockInfo(NVML_CLOCK_SM)) around phase 1, MHz. Unset
/// values could not be read; `note` says why.
struct SmClockRecord {
  std::optional<unsigned> before;    ///< right before the first timed call (after warm-up)
  std::optional<unsigned> after;     ///< right after the last timed call
  std::optional<unsigned> min_seen;  ///< lowest of the samples taken between timed calls
  std::optional<unsigned> max_seen;  ///< highest of those samples
  std::optional<unsigned> max_mhz;   ///< the GPU's maximum SM clock (nvmlDeviceGetMaxClockInfo)
  std::string note;
};

/// Phase 2's outcome. When `available` is false, `note` says why and the rest is empty.
struct KernelTimeResult {
  bool available = false;
  std::string note;
  KernelTimeSummary summary;               ///< per call and per kernel name
  std::optional<uint32_t> default_stream;  ///< CUPTI id of the legacy default stream, if seen
  size_t outside_kernels = 0;              ///< kernels no call window owns (not counted)
  std::vector<std::string> outside_names;
  size_t by_correlation = 0;  ///< attribution statistics (attribution.hpp)
  size_t by_time = 0;
  size_t launched_after_return = 0;  ///< kernels launched after their call had returned (attribution.hpp)
};

/// What NVML showed for one timed call, read in the same pass as its time: the lowest SM clock
/// and every clock event reason among the background samples taken inside the call's window and
/// one read right after the call finished (outside the window).
struct CallConditions {
  std::optional<unsigned> sm_mhz;   ///< lowest SM clock seen, MHz
  std::optional<uint64_t> reasons;  ///< OR of the clock event reason masks seen
};

/// The calls one pass discarded and why (a call may have both reasons; counted once in `total`).
struct DiscardSummary {
  size_t total = 0;
  size_t below_floor = 0;     ///< SM clock below TimingResult::clock_floor_mhz
  size_t throttled = 0;       ///< a power or thermal throttle reason (only with discard_throttled)
  size_t throttled_seen = 0;  ///< calls with a throttle reason, discarded or not
  /// Set when discarding would have left fewer than min_iters calls: every call was kept.
  bool kept_all = false;
  std::optional<unsigned> median_sm_mhz;  ///< median over the pass's calls of their lowest SM clock
  std::optional<unsigned> min_sm_mhz;
  std::optional<unsigned> max_sm_mhz;
};

/// Phase 3's outcome: each call's GPU time as Nsight Compute measures it, the sum of
/// gpu__time_duration.sum over the call's kernels (stages/timing/gpu_duration.hpp). When
/// `available` is false, `note` says why and the rest is empty.
struct GpuDurationResult {
  bool available = false;
  std::string note;
  size_t calls = 0;            ///< calls the pass made (kept or discarded)
  std::vector<double> sum_ms;  ///< per kept call, ms
  SampleStats sum;             ///< statistics of sum_ms
  size_t median_kernels = 0;   ///< kernels per call (median)
  /// NVML's clocks and throttle reasons in each call of this pass (the pass the reports lead
  /// with), and the calls the discard rule dropped (timing.hpp's clock floor, --discard-throttled).
  std::vector<CallConditions> conditions;
  DiscardSummary discard;
  /// Set when this pass ran at another SM clock than the kernel-time pass (timing.hpp
  /// gpu_duration_clock_mismatch): the range profiler's host time between calls lets a
  /// power-capped GPU recover its clock, so its times do not describe back-to-back use and the
  /// kernel records lead. Says both clocks.
  std::string clock_mismatch;
  /// Whether kprof asked CUPTI to reset the L2 before each kernel (off with --no-l2-flush), whether
  /// CUPTI did (asked and CUPTI 13.4+: gpu_duration.hpp), and the libcupti's API version (0: unknown).
  bool cache_control_asked = true;
  bool cache_control = false;
  uint32_t cupti_version = 0;
};

/// The input rotation of the timed calls.
struct InputRotation {
  int sets = 1;                 ///< input sets in use
  std::vector<uint64_t> seeds;  ///< their seeds (set k: seeds[k])
  std::string note;             ///< why fewer sets than asked (memory), or ""
};

/// Identical-versus-rotated inputs: a kernel that memoizes its output on an input fingerprint is
/// fast only when a call's inputs equal the previous call's.
struct MemoCheck {
  bool ran = false;
  int identical_calls = 0;              ///< calls timed on the same input set every time
  double identical_median_ms = 0;       ///< their median call time (CUDA events)
  double rotated_median_ms = 0;         ///< the first pass's median call time
  std::optional<NoiseVerdict> verdict;  ///< identical against rotated (ratio > 1: identical faster)
  bool suspected = false;               ///< identical faster by more than kMemoGap, significantly
  std::string note;
};

/// Identical inputs faster than rotated ones by more than this share (and significantly) is
/// reported as memoization. Source: kprof's rule; both passes restore and flush alike, so a
/// deterministic kernel shows no gap (a kernel whose time depends on the values may).
inline constexpr double kMemoGap = 0.10;

}  // namespace kprof
