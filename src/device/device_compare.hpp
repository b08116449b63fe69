// Bit-wise comparison of two device buffers on the GPU: the check asks "did the kernel
// change this input at all?" without copying either buffer to the host.
#pragma once

#include <cstddef>

namespace kprof {

/// True when the `bytes` bytes at device addresses `a` and `b` are bit-identical. One grid-stride
/// kernel (16-byte words when both addresses are 16-byte aligned, else bytes) and a 4-byte
/// read-back; synchronous. Throws Error (exit 1) naming `what` when the launch or copy fails.
bool device_bytes_equal(const void* a, const void* b, size_t bytes, const char* what);

}  // namespace kprof
