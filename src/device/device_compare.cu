// The kernel behind device_bytes_equal (device_compare.hpp) and its launch (device/launch.hpp).
#include <algorithm>
#include <cstdint>

#include "device/launch.hpp"

namespace kprof {
namespace {

constexpr int kThreads = 256;

/// Sets *differs when any of the `words` 16-byte words (or, with `words` 0, the `bytes` bytes)
/// of a and b differ. Each thread stops at its first difference.
__global__ void differs_kernel(const uint4* a, const uint4* b, size_t words, const unsigned char* ab,
                               const unsigned char* bb, size_t bytes, unsigned* differs) {
  const size_t start = blockIdx.x * size_t(blockDim.x) + threadIdx.x, step = size_t(gridDim.x) * blockDim.x;
  for (size_t i = start; i < words; i += step) {
    uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) {
      *differs = 1u;
      return;
    }
  }
  for (size_t i = start; i < bytes; i += step)
    if (ab[i] != bb[i]) {
      *differs = 1u;
      return;
    }
}

}  // namespace

cudaError_t launch_bytes_differ(const void* a, const void* b, size_t bytes, unsigned* differs) {
  const bool aligned = reinterpret_cast<uintptr_t>(a) % 16 == 0 && reinterpret_cast<uintptr_t>(b) % 16 == 0;
  const size_t words = aligned ? bytes / 16 : 0;
  const size_t head = words * 16;  // the bytes the word loop covers; the rest goes byte by byte
  const size_t items = std::max(words, bytes - head);
  const unsigned grid =
      static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>((items + kThreads - 1) / kThreads, 65535 * 8)));
  const auto* ab = static_cast<const unsigned char*>(a);
  const auto* bb = static_cast<const unsigned char*>(b);
  differs_kernel<<<grid, kThreads>>>(static_cast<const uint4*>(a), static_cast<const uint4*>(b), words, ab + head,
                                     bb + head, bytes - head, differs);
  return cudaGetLastError();
}

}  // namespace kprof
