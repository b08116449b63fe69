// What the CUDA runtime and NVML say about the machine's GPUs (for `kprof env` and `kprof clocks`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "stages/env/nvml.hpp"

namespace kprof {

/// Versions and device count from the CUDA runtime (linked statically: it loads libcuda itself).
struct CudaVersions {
  int runtime = 0;       ///< cudaRuntimeGetVersion, e.g. 13000 (always known: it is kprof's own)
  int driver_api = 0;    ///< cudaDriverGetVersion: newest CUDA the driver supports; 0 without a driver
  int device_count = 0;  ///< cudaGetDeviceCount; 0 when it failed
  std::string error;     ///< why no GPU can be used ("no CUDA driver/GPU: ..."), "" when one is visible
};

/// One GPU as seen through cudart (properties) and NVML (clocks, driver version).
struct GpuInfo {
  int index = 0;                   ///< CUDA device index (what --gpu selects)
  bool available = false;          ///< the device exists and its properties were read
  std::string error;               ///< why not available (with what to do), "" when available
  std::string name;                ///< cudaDeviceProp::name, "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;  ///< compute capability
  std::string arch;                ///< "sm_90"
  int sm_count = 0;                ///< cudaDevAttrMultiProcessorCount
  size_t memory_bytes = 0;         ///< cudaDeviceProp::totalGlobalMem, bytes
  size_t l2_bytes = 0;             ///< cudaDevAttrL2CacheSize, bytes
  std::string pci_bus_id;          ///< cudaDeviceGetPCIBusId, "0000:3B:00.0"
  std::string uuid;                ///< cudaDeviceProp::uuid as nvidia-smi prints it, "GPU-5f0c1a2b-..."
  CudaVersions versions;           ///< runtime / driver API / device count
  // NVML part (optional: the GPU can still be used without NVML).
  int nvml_index = -1;                    ///< the same GPU in NVML's order, -1 when unknown
  std::string nvml_error;                 ///< why NVML data is missing, "" when present
  std::string driver_version;             ///< nvmlSystemGetDriverVersion, "580.159.04"
  std::optional<GpuClocks> clocks;        ///< current/max SM and memory clocks, MHz
  std::optional<uint64_t> clock_reasons;  ///< nvmlDeviceGetCurrentClocksEventReasons mask
};

/// The 16 bytes of a GPU UUID in nvidia-smi's form: "GPU-" + 8-4-4-4-12 lowercase hex digits.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

/// Runtime / driver API versions and device count. Never throws.
CudaVersions cuda_versions();

/// "13.0" for 13000 (CUDA's 1000*major + 10*minor encoding); "none" for 0.
std::string format_cuda_version(int v);

/// Everything known about CUDA device `index`. Never throws: failures land in `error` /
/// `nvml_error` (e.g. "no CUDA driver/GPU: ...", "--gpu 3 is out of range: 1 device(s)").
GpuInfo gpu_info(int index);

/// NVML index of CUDA device `cuda_index`, matched by PCI bus id; when cudart cannot tell (no
/// driver), `cuda_index` itself with `note` saying so. -1 when NVML is unavailable.
int nvml_index_for_cuda_device(int cuda_index, std::string* note = nullptr);

}  // namespace kprof
