// NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): kprof never links it, so it starts on
// a machine without a driver. Only the calls kprof needs are declared (src/env/nvml.cpp).
//
// KPROF_NVML_LIBRARY=/path/to/libnvidia-ml.so loads another file instead (an unusual install, or
// the fake NVML the test suite builds so that it never touches a real GPU's clocks).
#pragma once

#include <cstdint>
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

/// nvmlClocksEventReasonApplicationsClocksSetting (0x2, also named
/// nvmlClocksThrottleReasonUserDefinedClocks): clocks held by a user setting such as a lock.
constexpr uint64_t kNvmlReasonUserDefinedClocks = 0x2ULL;

/// The loaded NVML library (a process-wide singleton).
class Nvml {
 public:
  /// The library, initialised (nvmlInit_v2) on first use; nullptr when it cannot be loaded or
  /// initialised, with the reason in `why` (e.g. "libnvidia-ml.so.1 not found: no NVIDIA driver").
  static Nvml* get(std::string* why = nullptr);

  /// The file get() loads: $KPROF_NVML_LIBRARY when set, else "libnvidia-ml.so.1".
  static std::string library_name();

  /// Current and maximum clocks of GPU `index` (NVML index order), or nullopt on failure.
  std::optional<GpuClocks> clocks(int index) const;

  /// Current SM clock in MHz, or nullopt.
  std::optional<unsigned> sm_clock_mhz(int index) const;

  /// Driver version string ("580.159.04"), or "".
  std::string driver_version() const;

  /// Number of GPUs NVML sees (all of them, whatever CUDA_VISIBLE_DEVICES says), 0 on failure.
  unsigned device_count() const;

  /// The device name ("NVIDIA H200"), or "".
  std::string device_name(int index) const;

  /// NVML index of the GPU at PCI bus id `bus_id` ("0000:3B:00.0", as cudaDeviceGetPCIBusId
  /// prints it), or nullopt. CUDA's and NVML's orders differ (CUDA_VISIBLE_DEVICES,
  /// CUDA_DEVICE_ORDER): this is how a CUDA index is mapped to NVML's.
  std::optional<int> index_by_pci_bus_id(const std::string& bus_id) const;

  /// Bit mask of active clock event reasons (nvmlDeviceGetCurrentClocksEventReasons, falling
  /// back to the older nvmlDeviceGetCurrentClocksThrottleReasons), or nullopt.
  std::optional<uint64_t> clock_event_reasons(int index) const;

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
