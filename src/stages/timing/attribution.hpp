// Pure functions over CUPTI activity records (no CUDA, no CUPTI): attribute each kernel record to
// the kprof call that launched it, then aggregate per call and per kernel name.
//
// Attribution (documented in src/stages/timing/README.md):
//   1. By correlation: every kernel record carries the correlation id of the runtime/driver API
//      call that launched it (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch, ...). kprof
//      records API activity too; the kernel belongs to call i when that API call *started* on the
//      host inside call i's window [begin_ns, end_ns]. Host timestamps only, so GPU queueing and
//      GPU/CPU clock conversion cannot move a kernel into the wrong call.
//   2. By time, when no API record has the kernel's correlation id: the window that contains the
//      kernel's GPU start timestamp.
//   Anything else is "outside" (launched between calls, e.g. by a background thread): reported,
//   never counted. kprof's own work between calls is dropped first: the L2 flush is a kernel
//   (kL2FlushKernelName, removed by drop_kernels_named); output restores are copies, not kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "stages/timing/stats.hpp"

namespace kprof {

/// One kernel execution (CUPTI_ACTIVITY_KIND_KERNEL record). Timestamps in ns (CUPTI clock).
struct KernelRecord {
  std::string name;  ///< demangled name
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t stream_id = 0;       ///< CUPTI stream id
  uint32_t correlation_id = 0;  ///< id of the API call that launched it
};

/// One runtime or driver API call (CUPTI_ACTIVITY_KIND_RUNTIME / _DRIVER): host timestamps, ns.
struct ApiRecord {
  uint32_t correlation_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

/// The host time span of one timed call, ns (CUPTI clock): from just before KernelInstance::call()
/// to the moment the whole device was seen idle after it.
struct CallWindow {
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
  /// When the host call returned (0: unknown). A kernel whose launching API call started after it
  /// was launched by something else than the call itself (a thread it left running).
  uint64_t return_ns = 0;
};

/// Kernels per call, plus those no call owns.
struct Attribution {
  std::vector<std::vector<KernelRecord>> per_call;  ///< per_call[i]: kernels of call i, by start
  std::vector<KernelRecord> outside;                ///< launched outside every window
  size_t by_correlation = 0;                        ///< kernels placed through their API record
  size_t by_time = 0;                               ///< kernels placed by their GPU start time
  /// Kernels inside a window whose launching API call started after the host call had returned
  /// (CallWindow::return_ns): work the call left behind, e.g. launched by a thread of its own.
  size_t launched_after_return = 0;
};

/// Removes every record whose name is exactly `name` (kprof's own flush kernel) from `kernels`;
/// returns how many it removed. Never throws.
size_t drop_kernels_named(std::vector<KernelRecord>& kernels, const std::string& name);

/// Attributes `kernels` to `windows` (sorted by begin, non-overlapping) as the file comment says.
/// Never throws; unsorted windows are sorted first.
Attribution attribute_kernels(const std::vector<KernelRecord>& kernels, const std::vector<ApiRecord>& apis,
                              std::vector<CallWindow> windows);

/// The union length of the kernels' [start, end) intervals in ns: GPU time during which at
/// least one of them ran (overlapping kernels on different streams count once).
uint64_t busy_ns(const std::vector<KernelRecord>& kernels);

/// Aggregate of one kernel name over all calls.
struct KernelNameStats {
  std::string name;
  size_t launches = 0;            ///< total launches over all calls
  double launches_per_call = 0;   ///< launches / number of calls
  SampleStats launch_ms;          ///< duration of each launch (end - start), ms
  double per_call_ms_median = 0;  ///< median over calls of this name's summed duration, ms
  double total_ms = 0;            ///< summed duration over all calls, ms
  std::vector<uint32_t> streams;  ///< CUPTI stream ids it ran on, ascending
};

/// What the kernel-time phase reports, derived from an Attribution.
struct KernelTimeSummary {
  std::vector<double> sum_ms;            ///< per call: summed kernel duration, ms (the "kernel time")
  std::vector<double> busy_ms;           ///< per call: union of kernel intervals, ms
  SampleStats sum;                       ///< statistics of sum_ms over calls
  SampleStats busy;                      ///< statistics of busy_ms over calls
  std::vector<KernelNameStats> kernels;  ///< per name, largest total_ms first
  size_t calls_without_kernels = 0;
  std::vector<uint32_t> other_streams;  ///< stream ids other than `default_stream`, ascending
  /// The kernel names of the first call in launch order (by the correlation id of the API call
  /// that launched each: the order ncu profiles them in). `kprof run` splits one Nsight Compute
  /// session's rows between versions with it (stages/ncu/session.hpp).
  std::vector<std::string> call_sequence;
  /// True when every call launched the same names in the same order (else call_sequence cannot
  /// stand for "the" call, and the version gets its own ncu session).
  bool sequence_stable = true;
};

/// The names of `call`'s kernels in launch order: by correlation id (the launching API call's
/// order on the host), by GPU start time where the ids are equal (0: unknown). Never throws.
std::vector<std::string> launch_sequence(const std::vector<KernelRecord>& call);

/// Sums, unions and per-name aggregates of `a`. `default_stream` is the CUPTI id of the legacy
/// default stream (where kprof's events are recorded); when absent, other_streams stays empty.
KernelTimeSummary summarize_kernels(const Attribution& a, std::optional<uint32_t> default_stream);

}  // namespace kprof
