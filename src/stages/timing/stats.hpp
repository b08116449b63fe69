// Pure statistics and decision rules of the timing stage (no CUDA): summary statistics of a
// sample, the "unstable" flag, the "launch or host overhead dominates" rule and the "kernels ran
// where the events cannot see them" rule. Every threshold is a named constant documented here and
// printed next to the measured value in the report (timing_report.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace kprof {

/// Summary of one sample (kprof passes milliseconds; the functions are unit-agnostic).
/// With n == 0 every value is NaN; with n == 1 stddev and cv are 0.
struct SampleStats {
  size_t n = 0;
  double median = 0;  ///< middle value (mean of the two middle values for even n)
  double mean = 0;
  double stddev = 0;  ///< sample standard deviation (divides by n - 1)
  double min = 0;
  double max = 0;
  double cv = 0;  ///< coefficient of variation = stddev / mean (NaN when mean is 0)
};

/// Median, mean, sample standard deviation, min, max, n and CV of `xs` (any order). Never throws.
SampleStats summarize(const std::vector<double>& xs);

/// A measurement is "unstable" when its coefficient of variation exceeds this (5%).
/// Source: kprof's own choice; common benchmarking practice treats a few percent of run-to-run
/// spread as noise, and above ~5% comparisons between kernel versions become unreliable.
constexpr double kUnstableCv = 0.05;

/// True when `s.cv > threshold` (or the CV is NaN with n > 1, e.g. a mean of 0).
bool is_unstable(const SampleStats& s, double threshold = kUnstableCv);

/// Launch or host overhead dominates the call when the GPU time of its kernels is below this
/// share (50%) of the call time (e.g. a 2 us kernel inside a 20 us call). Source: kprof's rule:
/// below half, most of what a caller pays is not kernel execution.
constexpr double kOverheadKernelShare = 0.5;

/// True when `kernel_ms < kOverheadKernelShare * call_ms` (medians over calls, ms). False when
/// either is NaN or call_ms <= 0.
bool overhead_dominates(double kernel_ms, double call_ms);

/// Kernel time above the call time by more than this share (2%) means part of the GPU work ran
/// outside the window the CUDA events on the legacy default stream measure (a non-blocking
/// stream). The margin absorbs timer resolution (events ~0.5 us) and clock conversion. Source:
/// kprof's rule.
constexpr double kEscapeMargin = 0.02;

/// True when `kernel_busy_ms > call_ms * (1 + kEscapeMargin)` (medians, ms), where kernel_busy_ms
/// is the union of kernel intervals of a call (overlapping kernels counted once). False on NaN.
bool kernels_exceed_call(double kernel_busy_ms, double call_ms);

}  // namespace kprof
