// CUPTI activity collection for the kernel-time phase: kernel executions
// (CUPTI_ACTIVITY_KIND_KERNEL: kernels serialized, timed by the front end), the runtime and driver
// API calls that launched them (CUPTI_ACTIVITY_KIND_RUNTIME / _DRIVER, for attribution by
// correlation id) and memsets (CUPTI_ACTIVITY_KIND_MEMSET: a marker that
// reveals the CUPTI id of the legacy default stream). Buffers come through CUPTI's buffer
// callbacks (cuptiActivityRegisterCallbacks) and are drained with cuptiActivityFlushAll.
//
// Why KIND_KERNEL and not CONCURRENT_KERNEL (bench/cupti_probe.cu, H200, 2026-11-29): on Hopper,
// CONCURRENT_KERNEL instruments the kernel code itself, and the instrumentation slows kernels with
// many blocks: a 64 Mi-element vector add (262144 blocks) took 258 us between CUDA events with it
// on against 241 us with CUPTI off, and CUPTI reported 250.6 us against ncu's 234.2 us
// gpu__time_duration (+7%). KIND_KERNEL serializes kernels instead (as ncu does) and reported
// 235.5 us (+0.6%); at 1 Ki elements 2.66 us against ncu's 2.21 us (CONCURRENT_KERNEL: 1.22 us).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stages/timing/attribution.hpp"

namespace kprof {

/// How kernel time is measured, as profile.json's kernel_time.source states it.
inline constexpr const char* kKernelTimeSource =
    "CUPTI_ACTIVITY_KIND_KERNEL records (kernels serialized, timed by the GPU front end)";

/// One memset seen by CUPTI (CUpti_ActivityMemset*). Timestamps in ns.
struct MemsetRecord {
  uint32_t stream_id = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

/// Everything one CuptiSession collected.
struct CuptiRecords {
  std::vector<KernelRecord> kernels;  ///< names demangled; records without timestamps dropped
  std::vector<ApiRecord> apis;
  std::vector<MemsetRecord> memsets;
  size_t other_kinds = 0;   ///< records of kinds kprof does not read (e.g. memcpy)
  size_t dropped = 0;       ///< records CUPTI dropped (cuptiActivityGetNumDroppedRecords)
  size_t no_timestamp = 0;  ///< kernel records without start/end (CUPTI could not time them)
};

/// The CUPTI stream id of the first memset of exactly `bytes` bytes writing `value`: kprof
/// enqueues such a marker on the legacy default stream right after enabling CUPTI, so this is the
/// id under which CUPTI reports that stream. nullopt when no record matches.
std::optional<uint32_t> marker_stream_id(const std::vector<MemsetRecord>& memsets, uint64_t bytes, uint32_t value);

/// One activity collection, active from construction to finish(). Only one per process at a time
/// (CUPTI has one activity subscriber); the CUDA context must exist before construction.
class CuptiSession {
 public:
  /// Registers the buffer callbacks (once per process) and enables the activity kinds. Throws
  /// Error (exit 1) with CUPTI's message when CUPTI cannot collect (for example when another
  /// profiler such as Nsight Systems already holds it, or libcupti does not match the driver).
  CuptiSession();
  /// Disables the kinds when finish() was not called (records are discarded).
  ~CuptiSession();
  CuptiSession(const CuptiSession&) = delete;
  CuptiSession& operator=(const CuptiSession&) = delete;

  /// CUPTI's clock now, ns (cuptiGetTimestamp): the clock of every record's timestamps.
  static uint64_t now_ns();

  /// Flushes every buffer (cuptiActivityFlushAll with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), disables
  /// the kinds and returns the records. Call after the device is idle. Throws Error (exit 1) when
  /// the flush fails.
  CuptiRecords finish();

 private:
  bool active_ = false;
};

}  // namespace kprof
