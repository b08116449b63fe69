// NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): kprof never links it, so it starts on
// a machine without a driver. Only the calls kprof needs are declared (src/stages/env/nvml.cpp).
//
// KPROF_NVML_LIBRARY=/path/to/libnvidia-ml.so loads another file instead (an unusual install, or
// the fake NVML the test suite builds so that it never touches a real GPU's clocks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Clocks of one GPU in MHz as NVML reports them (nvmlDeviceGetClockInfo / GetMaxClockInfo).
struct GpuClocks {
  unsigned sm_mhz = 0;       ///< current SM clock (NVML_CLOCK_SM)
  unsigned mem_mhz = 0;      ///< current memory clock (NVML_CLOCK_MEM)
  unsigned sm_max_mhz = 0;   ///< maximum SM clock
  unsigned mem_max_mhz = 0;  ///< maximum memory clock
};

/// nvmlClocksEventReasonApplicationsClocksSetting (0x2, also named
/// nvmlClocksThrottleReasonUserDefinedClocks): clocks held by a user setting such as a lock.
constexpr uint64_t kNvmlReasonUserDefinedClocks = 0x2ULL;
/// nvmlClocksEventReasonGpuIdle (0x1): nothing runs on the GPU.
constexpr uint64_t kNvmlReasonGpuIdle = 0x1ULL;

/// The bits of NVML's clock event reasons (nvml.h, nvmlClocksEventReason*), with the names kprof
/// prints: 0x1 GPU idle, 0x2 application/locked clocks, 0x4 SW power cap, 0x8 HW slowdown,
/// 0x10 sync boost, 0x20 SW thermal slowdown, 0x40 HW thermal slowdown, 0x80 HW power brake,
/// 0x100 display clock setting.
struct NvmlReasonBit {
  uint64_t bit;
  const char* name;
};
const std::vector<NvmlReasonBit>& nvml_reason_bits();

/// "SW power cap, HW slowdown" for a mask (unknown bits as "0x..."), "none" for 0.
std::string nvml_reason_names(uint64_t mask);

/// True when `mask` holds a reason that lowers the clock below what the workload asked for:
/// power cap, HW slowdown, thermal slowdown or power brake (0x4, 0x8, 0x20, 0x40, 0x80). Idle,
/// application clocks, sync boost and display clocks are not throttling.
bool nvml_reasons_throttle(uint64_t mask);

/// One reading of the quantities that say under which conditions a kernel ran. Unset fields
/// could not be read. All calls are NVML queries (read-only).
struct NvmlSample {
  std::optional<unsigned> sm_mhz;   ///< nvmlDeviceGetClockInfo(NVML_CLOCK_SM), MHz
  std::optional<unsigned> mem_mhz;  ///< nvmlDeviceGetClockInfo(NVML_CLOCK_MEM), MHz
  std::optional<double> power_w;    ///< nvmlDeviceGetPowerUsage, W (NVML averages it over a window: it lags)
  std::optional<uint64_t> reasons;  ///< nvmlDeviceGetCurrentClocksEventReasons mask
  std::optional<unsigned> temp_c;   ///< nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU), C
};

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

  /// Power draw of GPU `index` in W (nvmlDeviceGetPowerUsage, milliwatts / 1000), or nullopt.
  std::optional<double> power_w(int index) const;

  /// The enforced power limit of GPU `index` in W (nvmlDeviceGetEnforcedPowerLimit), or nullopt.
  std::optional<double> power_limit_w(int index) const;

  /// GPU temperature in C (nvmlDeviceGetTemperature, sensor NVML_TEMPERATURE_GPU), or nullopt.
  std::optional<unsigned> temperature_c(int index) const;

  /// SM and memory clock, power, clock event reasons and temperature of GPU `index`, read now.
  NvmlSample sample(int index) const;

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
