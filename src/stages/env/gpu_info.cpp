#include "stages/env/gpu_info.hpp"

#include <cstring>

#include <cuda_runtime_api.h>

#include "device/cuda.hpp"

namespace kprof {

CudaVersions cuda_versions() {
  CudaVersions v;
  cudaRuntimeGetVersion(&v.runtime);
  if (cudaDriverGetVersion(&v.driver_api) != cudaSuccess) v.driver_api = 0;
  cudaGetLastError();
  v.error = cuda_unavailable_reason();
  if (v.error.empty()) cudaGetDeviceCount(&v.device_count);
  return v;
}

std::string format_cuda_version(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int nvml_index_for_cuda_device(int cuda_index, std::string* note) {
  std::string why;
  Nvml* nvml = Nvml::get(&why);
  if (!nvml) {
    if (note) *note = why;
    return -1;
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_index) == cudaSuccess) {
    if (auto idx = nvml->index_by_pci_bus_id(bus)) return *idx;
    if (note)
      *note = std::string("NVML knows no GPU at PCI bus id ") + bus + "; using index " + std::to_string(cuda_index);
  } else {
    cudaGetLastError();
    if (note)
      *note = "CUDA cannot map the index to a PCI bus id; NVML index " + std::to_string(cuda_index) + " assumed";
  }
  return cuda_index;
}

std::string format_gpu_uuid(const unsigned char (&bytes)[16]) {
  static const char* hex = "0123456789abcdef";
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += hex[bytes[i] >> 4];
    s += hex[bytes[i] & 0xF];
  }
  return s;
}

GpuInfo gpu_info(int index) {
  GpuInfo g;
  g.index = index;
  g.versions = cuda_versions();
  if (!g.versions.error.empty()) {
    g.error = g.versions.error;
  } else if (index < 0 || index >= g.versions.device_count) {
    g.error = "--gpu " + std::to_string(index) + " is out of range: " + std::to_string(g.versions.device_count) +
              " device(s) visible (0.." + std::to_string(g.versions.device_count - 1) + ")";
  } else {
    cudaDeviceProp p{};
    cudaError_t rc = cudaGetDeviceProperties(&p, index);
    if (rc != cudaSuccess) {
      cudaGetLastError();
      g.error = std::string("cudaGetDeviceProperties(") + std::to_string(index) + ") failed: " + cudaGetErrorName(rc) +
                " (" + cudaGetErrorString(rc) + ")";
    } else {
      g.available = true;
      g.name = p.name;
      g.cc_major = p.major;
      g.cc_minor = p.minor;
      g.arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
      g.sm_count = p.multiProcessorCount;
      g.memory_bytes = p.totalGlobalMem;
      g.l2_bytes = static_cast<size_t>(p.l2CacheSize);
      unsigned char uuid[16];
      std::memcpy(uuid, p.uuid.bytes, sizeof uuid);
      g.uuid = format_gpu_uuid(uuid);
      char bus[32] = {};
      if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess) g.pci_bus_id = bus;
      cudaGetLastError();
    }
  }
  std::string why;
  Nvml* nvml = Nvml::get(&why);
  if (!nvml) {
    g.nvml_error = why;
    return g;
  }
  g.driver_version = nvml->driver_version();
  std::string note;
  g.nvml_index = nvml_index_for_cuda_device(index, &note);
  if (g.available || static_cast<unsigned>(g.nvml_index) < nvml->device_count()) {
    g.clocks = nvml->clocks(g.nvml_index);
    g.clock_reasons = nvml->clock_event_reasons(g.nvml_index);
    if (!g.clocks) g.nvml_error = "NVML could not read the clocks of GPU " + std::to_string(g.nvml_index);
  }
  if (!note.empty() && g.nvml_error.empty() && g.available) g.nvml_error = note;
  return g;
}

}  // namespace kprof
