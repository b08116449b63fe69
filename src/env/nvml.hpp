// NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): kprof never links it, so it starts on
// a machine without a driver. Only the calls kprof needs are declared (src/env/nvml.cpp).
#pragma once

#include <optional>
#include <string>

namespace kprof {

/// Clocks of one GPU in MHz as NVML reports them (nvmlDeviceGetClockInfo / GetMaxClockInfo).
struct GpuClocks {
  unsigned sm_mhz = 0;        ///< current SM clock (NVML_CLOCK_SM)
  unsigned mem_mhz = 0;       ///< current memory clock (NVML_CLOCK_MEM)
  unsigned sm_max_mhz = 0;    ///< maximum SM clock
  unsigned mem_max_mhz = 0;   ///< maximum memory clock
};

/// The loaded NVML library (a process-wide singleton).
class Nvml {
 public:
  /// The library, initialised (nvmlInit_v2) on first use; nullptr when it cannot be loaded or
  /// initialised, with the reason in `why` (e.g. "libnvidia-ml.so.1 not found: no NVIDIA driver").
  static Nvml* get(std::string* why = nullptr);

  /// Current and maximum clocks of GPU `index` (NVML index order), or nullopt on failure.
  std::optional<GpuClocks> clocks(int index) const;

  /// Current SM clock in MHz, or nullopt.
  std::optional<unsigned> sm_clock_mhz(int index) const;

  /// Driver version string ("580.159.04"), or "".
  std::string driver_version() const;

  /// Locks the SM clock range of GPU `index` to [min_mhz, max_mhz] (nvmlDeviceSetGpuLockedClocks).
  /// Returns "" on success, else NVML's error string (e.g. "Insufficient Permissions").
  /// Never called by the test suite on a real GPU.
  std::string lock_sm_clock(int index, unsigned min_mhz, unsigned max_mhz) const;

  /// Restores default SM clocks (nvmlDeviceResetGpuLockedClocks). "" on success, else the error.
  std::string reset_sm_clock(int index) const;

 private:
  Nvml() = default;
  struct Api;
  Api* api_ = nullptr;
};

}  // namespace kprof
