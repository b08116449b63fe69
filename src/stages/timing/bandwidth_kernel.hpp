// The copy kernel behind the achievable-bandwidth ceiling (stages/timing/achievable.hpp) and the
// empty kernel behind the launch floor (stages/timing/launch_floor.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kprof {

/// The kernel's name as CUPTI and ncu report it (extern "C", not mangled).
inline constexpr const char* kBandwidthCopyKernelName = "kprof_bandwidth_copy";

/// Enqueues on the legacy default stream a copy of `bytes` (a multiple of 16) from `src` to
/// `dst` on the current device: one 16-byte load and store per thread (256-thread blocks), the pattern
/// that reaches the highest DRAM bandwidth on Hopper. Returns the launch error.
cudaError_t launch_bandwidth_copy(const void* src, void* dst, size_t bytes);

/// The empty kernel's name as CUPTI and ncu report it (extern "C").
inline constexpr const char* kEmptyKernelName = "kprof_empty_kernel";

/// Enqueues on the legacy default stream one block of one thread that does nothing: the least
/// kernel there is (its gpu__time_duration is the launch floor). Returns the launch error.
cudaError_t launch_empty_kernel();

}  // namespace kprof
