// NVML through dlopen. The prototypes below are declared here (no nvml.h is needed to build
// kprof); their ABI is stable across driver releases. Reference: NVIDIA Management Library API
// Reference Guide, https://docs.nvidia.com/deploy/nvml-api/ (groups "Initialization and Cleanup",
// "System Queries", "Device Queries", "Device Commands", "Error reporting").
#include "stages/env/nvml.hpp"
#include "core/settings.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace kprof {
namespace {

using nvmlReturn_t = int;                    // enum nvmlReturn_t; NVML_SUCCESS = 0
using nvmlDevice_t = struct nvmlDevice_st*;  // opaque handle
using nvmlClockType_t = int;                 // enum nvmlClockType_t
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlClockType_t NVML_CLOCK_SM = 1;
constexpr nvmlClockType_t NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;  // enum nvmlTemperatureSensors_t
constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;

template <typename F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(::dlsym(lib, name));
}

}  // namespace

struct Nvml::Api {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;                                               // nvmlInit_v2
  const char* (*error_string)(nvmlReturn_t) = nullptr;                            // nvmlErrorString
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;                      // nvmlSystemGetDriverVersion
  nvmlReturn_t (*count)(unsigned*) = nullptr;                                     // nvmlDeviceGetCount_v2
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;             // nvmlDeviceGetHandleByIndex_v2
  nvmlReturn_t (*handle_by_pci)(const char*, nvmlDevice_t*) = nullptr;            // nvmlDeviceGetHandleByPciBusId_v2
  nvmlReturn_t (*index_of)(nvmlDevice_t, unsigned*) = nullptr;                    // nvmlDeviceGetIndex
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;                  // nvmlDeviceGetName
  nvmlReturn_t (*clock)(nvmlDevice_t, nvmlClockType_t, unsigned*) = nullptr;      // nvmlDeviceGetClockInfo
  nvmlReturn_t (*max_clock)(nvmlDevice_t, nvmlClockType_t, unsigned*) = nullptr;  // nvmlDeviceGetMaxClockInfo
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;           // ...ClocksEventReasons
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;                       // nvmlDeviceGetPowerUsage (mW)
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;       // nvmlDeviceGetEnforcedPowerLimit (mW)
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;  // nvmlDeviceGetTemperature
  nvmlReturn_t (*lock)(nvmlDevice_t, unsigned, unsigned) = nullptr;     // nvmlDeviceSetGpuLockedClocks
  nvmlReturn_t (*reset)(nvmlDevice_t) = nullptr;                        // nvmlDeviceResetGpuLockedClocks

  std::string err(nvmlReturn_t rc) const {
    const char* s = error_string ? error_string(rc) : nullptr;
    return s ? std::string(s) : "NVML error " + std::to_string(rc);
  }
  nvmlDevice_t device(int index) const {
    nvmlDevice_t d = nullptr;
    if (index < 0 || !handle_by_index || handle_by_index(static_cast<unsigned>(index), &d) != NVML_SUCCESS)
      return nullptr;
    return d;
  }
};

std::string Nvml::library_name() { return settings().nvml_library; }

Nvml* Nvml::get(std::string* why) {
  static std::once_flag once;
  static Nvml* instance = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    std::string file = library_name();
    void* lib = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = ::dlerror();
      failure = file + " not found: no NVIDIA driver (" + (e ? e : "dlopen failed") + ")";
      return;
    }
    auto* api = new Api;
    api->lib = lib;
    api->init = sym<decltype(api->init)>(lib, "nvmlInit_v2");
    api->error_string = sym<decltype(api->error_string)>(lib, "nvmlErrorString");
    api->driver_version = sym<decltype(api->driver_version)>(lib, "nvmlSystemGetDriverVersion");
    api->count = sym<decltype(api->count)>(lib, "nvmlDeviceGetCount_v2");
    api->handle_by_index = sym<decltype(api->handle_by_index)>(lib, "nvmlDeviceGetHandleByIndex_v2");
    api->handle_by_pci = sym<decltype(api->handle_by_pci)>(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    api->index_of = sym<decltype(api->index_of)>(lib, "nvmlDeviceGetIndex");
    api->name = sym<decltype(api->name)>(lib, "nvmlDeviceGetName");
    api->clock = sym<decltype(api->clock)>(lib, "nvmlDeviceGetClockInfo");
    api->max_clock = sym<decltype(api->max_clock)>(lib, "nvmlDeviceGetMaxClockInfo");
    api->reasons = sym<decltype(api->reasons)>(lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!api->reasons) api->reasons = sym<decltype(api->reasons)>(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    api->power = sym<decltype(api->power)>(lib, "nvmlDeviceGetPowerUsage");
    api->power_limit = sym<decltype(api->power_limit)>(lib, "nvmlDeviceGetEnforcedPowerLimit");
    api->temperature = sym<decltype(api->temperature)>(lib, "nvmlDeviceGetTemperature");
    api->lock = sym<decltype(api->lock)>(lib, "nvmlDeviceSetGpuLockedClocks");
    api->reset = sym<decltype(api->reset)>(lib, "nvmlDeviceResetGpuLockedClocks");
    if (!api->init || !api->handle_by_index) {
      failure = file + " lacks nvmlInit_v2 / nvmlDeviceGetHandleByIndex_v2: driver too old or not NVML";
      ::dlclose(lib);
      delete api;
      return;
    }
    nvmlReturn_t rc = api->init();
    if (rc != NVML_SUCCESS) {
      failure = "nvmlInit_v2 failed: " + api->err(rc) + " (is the NVIDIA driver loaded? try nvidia-smi)";
      ::dlclose(lib);
      delete api;
      return;
    }
    instance = new Nvml;
    instance->api_ = api;
  });
  if (!instance && why) *why = failure;
  return instance;
}

std::optional<GpuClocks> Nvml::clocks(int index) const {
  nvmlDevice_t d = api_->device(index);
  if (!d || !api_->clock || !api_->max_clock) return std::nullopt;
  GpuClocks c;
  if (api_->clock(d, NVML_CLOCK_SM, &c.sm_mhz) != NVML_SUCCESS) return std::nullopt;
  if (api_->clock(d, NVML_CLOCK_MEM, &c.mem_mhz) != NVML_SUCCESS) return std::nullopt;
  if (api_->max_clock(d, NVML_CLOCK_SM, &c.sm_max_mhz) != NVML_SUCCESS) return std::nullopt;
  if (api_->max_clock(d, NVML_CLOCK_MEM, &c.mem_max_mhz) != NVML_SUCCESS) return std::nullopt;
  return c;
}

std::optional<unsigned> Nvml::sm_clock_mhz(int index) const {
  nvmlDevice_t d = api_->device(index);
  unsigned mhz = 0;
  if (!d || !api_->clock || api_->clock(d, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS) return std::nullopt;
  return mhz;
}

std::string Nvml::driver_version() const {
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  if (!api_->driver_version || api_->driver_version(buf, sizeof buf) != NVML_SUCCESS) return "";
  return buf;
}

unsigned Nvml::device_count() const {
  unsigned n = 0;
  if (!api_->count || api_->count(&n) != NVML_SUCCESS) return 0;
  return n;
}

std::string Nvml::device_name(int index) const {
  nvmlDevice_t d = api_->device(index);
  char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  if (!d || !api_->name || api_->name(d, buf, sizeof buf) != NVML_SUCCESS) return "";
  return buf;
}

std::optional<int> Nvml::index_by_pci_bus_id(const std::string& bus_id) const {
  nvmlDevice_t d = nullptr;
  unsigned idx = 0;
  if (!api_->handle_by_pci || !api_->index_of) return std::nullopt;
  if (api_->handle_by_pci(bus_id.c_str(), &d) != NVML_SUCCESS || !d) return std::nullopt;
  if (api_->index_of(d, &idx) != NVML_SUCCESS) return std::nullopt;
  return static_cast<int>(idx);
}

std::optional<uint64_t> Nvml::clock_event_reasons(int index) const {
  nvmlDevice_t d = api_->device(index);
  unsigned long long mask = 0;
  if (!d || !api_->reasons || api_->reasons(d, &mask) != NVML_SUCCESS) return std::nullopt;
  return static_cast<uint64_t>(mask);
}

std::optional<double> Nvml::power_w(int index) const {
  nvmlDevice_t d = api_->device(index);
  unsigned mw = 0;
  if (!d || !api_->power || api_->power(d, &mw) != NVML_SUCCESS) return std::nullopt;
  return mw / 1000.0;
}

std::optional<double> Nvml::power_limit_w(int index) const {
  nvmlDevice_t d = api_->device(index);
  unsigned mw = 0;
  if (!d || !api_->power_limit || api_->power_limit(d, &mw) != NVML_SUCCESS) return std::nullopt;
  return mw / 1000.0;
}

std::optional<unsigned> Nvml::temperature_c(int index) const {
  nvmlDevice_t d = api_->device(index);
  unsigned t = 0;
  if (!d || !api_->temperature || api_->temperature(d, NVML_TEMPERATURE_GPU, &t) != NVML_SUCCESS) return std::nullopt;
  return t;
}

NvmlSample Nvml::sample(int index) const {
  NvmlSample s;
  nvmlDevice_t d = api_->device(index);
  if (!d) return s;
  unsigned v = 0;
  if (api_->clock && api_->clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS) s.sm_mhz = v;
  if (api_->clock && api_->clock(d, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) s.mem_mhz = v;
  if (api_->power && api_->power(d, &v) == NVML_SUCCESS) s.power_w = v / 1000.0;
  unsigned long long mask = 0;
  if (api_->reasons && api_->reasons(d, &mask) == NVML_SUCCESS) s.reasons = static_cast<uint64_t>(mask);
  if (api_->temperature && api_->temperature(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) s.temp_c = v;
  return s;
}

const std::vector<NvmlReasonBit>& nvml_reason_bits() {
  static const std::vector<NvmlReasonBit> bits = {{0x1, "GPU idle"},
                                                  {0x2, "application/locked clocks"},
                                                  {0x4, "SW power cap"},
                                                  {0x8, "HW slowdown"},
                                                  {0x10, "sync boost"},
                                                  {0x20, "SW thermal slowdown"},
                                                  {0x40, "HW thermal slowdown"},
                                                  {0x80, "HW power brake"},
                                                  {0x100, "display clock setting"}};
  return bits;
}

std::string nvml_reason_names(uint64_t mask) {
  if (mask == 0) return "none";
  std::string out;
  uint64_t known = 0;
  for (const auto& b : nvml_reason_bits()) {
    known |= b.bit;
    if (mask & b.bit) out += (out.empty() ? "" : ", ") + std::string(b.name);
  }
  if (mask & ~known) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(mask & ~known));
    out += (out.empty() ? "" : ", ") + std::string(buf);
  }
  return out;
}

bool nvml_reasons_throttle(uint64_t mask) { return (mask & (0x4 | 0x8 | 0x20 | 0x40 | 0x80)) != 0; }

std::string Nvml::lock_sm_clock(int index, unsigned min_mhz, unsigned max_mhz) const {
  if (!api_->lock) return "this driver's NVML has no nvmlDeviceSetGpuLockedClocks (Volta or newer, driver >= 418)";
  nvmlDevice_t d = api_->device(index);
  if (!d) return "no NVML device " + std::to_string(index);
  nvmlReturn_t rc = api_->lock(d, min_mhz, max_mhz);
  return rc == NVML_SUCCESS ? "" : api_->err(rc);
}

std::string Nvml::reset_sm_clock(int index) const {
  if (!api_->reset) return "this driver's NVML has no nvmlDeviceResetGpuLockedClocks";
  nvmlDevice_t d = api_->device(index);
  if (!d) return "no NVML device " + std::to_string(index);
  nvmlReturn_t rc = api_->reset(d);
  return rc == NVML_SUCCESS ? "" : api_->err(rc);
}

}  // namespace kprof
