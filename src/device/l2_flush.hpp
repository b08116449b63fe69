// The kernel behind L2Flusher (stages/timing/device_ops.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kprof {

/// The flush kernel's name as CUPTI reports it (an extern "C" kernel, so not mangled).
inline constexpr const char* kL2FlushKernelName = "kprof_l2_flush_read";

/// Enqueues on `stream` a kernel that reads all `bytes` of device buffer `scratch` (which should be
/// at least twice the L2 size), leaving L2 full of clean lines of it. Returns the launch error.
cudaError_t launch_l2_read_flush(const void* scratch, size_t bytes, cudaStream_t stream);

}  // namespace kprof
