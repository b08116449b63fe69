// The version of the libcupti kprof runs with (CUPTI's cuptiGetVersion): the GPU-duration pass
// (stages/timing/gpu_duration.hpp) resets the L2 before each kernel only with CUPTI 13.4+, and
// `kprof env` reports which one is loaded.
#pragma once

#include <cstdint>
#include <string>

namespace kprof {

/// CUPTI's API version of the loaded libcupti (cuptiGetVersion: 130001 for CUDA 13.0's, 130500
/// for PyPI nvidia-cuda-cupti 13.5), or 0 when it cannot say (CUPTI 13.5's libcupti fails every
/// call when no CUDA driver is installed). Never throws.
uint32_t cupti_api_version();

/// The first CUPTI API version (cuptiGetVersion) whose range profiler resets the L2 before each
/// kernel as ncu's --cache-control all does: CUPTI 13.4 (cupti_range_profiler.h
/// CUpti_CacheControl_Mode, available since CUDA 13.4).
inline constexpr uint32_t kCuptiCacheControlVersion = 130400;

/// Whether a libcupti of `api_version` can reset the L2 before each kernel (>= kCuptiCacheControlVersion).
inline bool cupti_has_cache_control(uint32_t api_version) { return api_version >= kCuptiCacheControlVersion; }

/// "13.5" for 130500, "13.0" for 130001, "unknown" for 0.
std::string cupti_version_text(uint32_t api_version);

/// The directory of the loaded libcupti (device/cupti_loader.hpp cupti_load), or "" when none is loaded.
std::string cupti_library_dir();

}  // namespace kprof
