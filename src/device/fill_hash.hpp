// The counter-based generator behind kprof's seeded buffer fills, shared by the GPU kernels
// (fill.cu) and host code (tests, reports): the value of element `i` of buffer `b` depends only on
// (seed, b, i), so one seed gives the same bytes whatever the buffer size or launch shape.
#pragma once

#include <math.h>

#include <cstdint>

#if defined(__CUDACC__)
#define KPROF_HD __host__ __device__ __forceinline__
#else
#define KPROF_HD inline
#endif

namespace kprof {

/// Integer fills are uniform in [0, kFillIntRange) for every integer type (signed too):
/// non-negative and small, so index-like inputs (gathers, histograms with >= 16 bins) stay in
/// range and sums cannot overflow for realistic sizes.
constexpr uint32_t kFillIntRange = 16;

/// splitmix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix.
KPROF_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// 64 random bits for element `index` of buffer number `buffer` under `seed`.
KPROF_HD uint64_t fill_bits(uint64_t seed, uint32_t buffer, uint64_t index) {
  uint64_t key = splitmix64(seed * 0xD1B54A32D192ED03ull + buffer);
  return splitmix64(key ^ splitmix64(index));
}

/// The two uniforms of Box-Muller from one 64-bit draw: u1 in (0, 1] (never 0, so log is finite)
/// and u2 in [0, 1), 24 bits each.
KPROF_HD float fill_u1(uint64_t h) { return static_cast<float>((h >> 40) + 1) * (1.0f / 16777216.0f); }
KPROF_HD float fill_u2(uint64_t h) { return static_cast<float>((h >> 16) & 0xFFFFFFu) * (1.0f / 16777216.0f); }

/// normal(0,1) sample for float32 / float16 / bfloat16 buffers (half types round this value to
/// nearest even). |value| <= 5.77 (u1 >= 2^-24).
KPROF_HD float fill_normal_f32(uint64_t seed, uint32_t buffer, uint64_t index) {
  uint64_t h = fill_bits(seed, buffer, index);
  float r = sqrtf(-2.0f * logf(fill_u1(h)));
  return r * cosf(6.283185307179586f * fill_u2(h));
}

/// normal(0,1) sample for float64 buffers: the same uniforms, double-precision math.
KPROF_HD double fill_normal_f64(uint64_t seed, uint32_t buffer, uint64_t index) {
  uint64_t h = fill_bits(seed, buffer, index);
  double r = sqrt(-2.0 * log(static_cast<double>(fill_u1(h))));
  return r * cos(6.283185307179586 * static_cast<double>(fill_u2(h)));
}

/// Integer sample in [0, kFillIntRange) for integer buffers of any width.
KPROF_HD uint32_t fill_int(uint64_t seed, uint32_t buffer, uint64_t index) {
  return static_cast<uint32_t>(fill_bits(seed, buffer, index) >> 32) % kFillIntRange;
}

}  // namespace kprof
