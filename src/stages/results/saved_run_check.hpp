// What a saved run (comparison.json, profile.json) read by `kprof compare` must hold before any
// verdict or gate is computed from it (issue 50): times that can be. Kept apart from compare.*,
// whose decision rule is another issue's (49).
#pragma once

#include <string>
#include <vector>

#include "stages/results/versions.hpp"

namespace kprof {

/// No GPU time measurement of a kernel call reads below this: a launch takes about a microsecond;
/// one nanosecond is far below any real reading (CUDA events resolve 0.5 us). In ms.
inline constexpr double kMinTimeMs = 1e-6;

/// How far the median of a version's samples may be from the median the file states, as a
/// fraction of the stated one: kprof writes both from the same calls, so they agree; 10% leaves
/// room for a writer that rounds or trims.
inline constexpr double kMedianTolerance = 0.10;

/// Above this many samples per series, compare works on an evenly spaced subset (sorted order
/// kept), so a file of a million calls per version is compared in seconds (the rule resamples
/// every sample: 100,000 took 6 s of CPU, 10,000 keep the distribution at a tenth of that).
inline constexpr size_t kMaxComparedSamples = 10000;

/// Checks every time of `row` (a version read from `path`): time_ms, call_ms, kernel_ms and their
/// spreads finite, the times >= kMinTimeMs; every sample of time_samples_ms, call_samples_ms and
/// kernel_samples_ms finite and >= kMinTimeMs; each series' median within kMedianTolerance of
/// its stated median. Throws damaged_input (exit 2, core/error.hpp) naming the file, the version,
/// the field and the value: no verdict and no gate is computed from such a file.
void check_saved_times(const std::string& path, const VersionRow& row);

/// Thins every sample series of `row` longer than kMaxComparedSamples to that many, evenly spaced
/// in sorted order (the median and the spread kept). Returns a note for the report when it did, "".
std::string bound_samples(VersionRow& row);

}  // namespace kprof
