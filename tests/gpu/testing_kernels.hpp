// Device code for kprof's own GPU tests of the timing stage (tests/gpu/test_timing.cpp), compiled
// into the test binary only (tests/CMakeLists.txt).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kprof::test_kernels {

/// Launches `kprof::test_kernels::spin_kernel` on `stream`: one block of `threads` threads that spin
/// until `ns` nanoseconds of the GPU's %globaltimer have passed (more than 1024 threads is an
/// invalid configuration, for tests of launch errors). Returns cudaPeekAtLastError() after the
/// launch (the error stays set, as after a real solve).
cudaError_t launch_spin(uint64_t ns, cudaStream_t stream, unsigned threads = 1);

/// Launches `kprof::test_kernels::add_one_kernel`: x[i] += 1.0f for i < n (an in-place kernel), on
/// `stream`. Returns cudaPeekAtLastError() after the launch.
cudaError_t launch_add_one(float* x, size_t n, cudaStream_t stream);

/// Launches `kprof::test_kernels::read_kernel`: reads x[0, n) once (grid-stride, 8 blocks per SM)
/// and writes nothing while the data is non-negative: a kernel whose time depends on whether x is
/// in L2. Returns cudaPeekAtLastError() after the launch.
cudaError_t launch_read(const float* x, size_t n, cudaStream_t stream);

}  // namespace kprof::test_kernels
