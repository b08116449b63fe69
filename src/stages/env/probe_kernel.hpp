// kprof's own trivial kernel: what `kprof __probe` launches so that `kprof env` can ask ncu for
// one metric (sm__cycles_elapsed.avg) without depending on any user code.
#pragma once

#include <cuda_runtime_api.h>

namespace kprof {

/// Launches one block of 32 threads of a trivial kernel on CUDA device `gpu`, waits for it and
/// checks what it wrote. Throws Error: exit 1 "no CUDA driver/GPU ..." or a CUDA error,
/// exit 2 when `gpu` is out of range.
void run_probe_kernel(int gpu);

/// Launches the probe kernel's one block on the current device, writing 33 words at device address
/// `out` (out[0] = 42); returns cudaGetLastError(). Compiled by nvcc: C types only (device/launch.hpp).
cudaError_t launch_probe_kernel(unsigned* out);

}  // namespace kprof
