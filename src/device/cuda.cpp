#include "device/cuda.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace kprof {
namespace {
std::atomic<bool> g_hard_exit{false};
}  // namespace

bool hard_exit_requested() { return g_hard_exit.load(); }

void request_hard_exit() { g_hard_exit = true; }

void exit_now(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

int exit_now_if_stuck(int code) {
  if (hard_exit_requested()) exit_now(code);
  return code;
}

void device_free(void* p) {
  if (p && !hard_exit_requested()) cudaFree(p);
}

void cuda_check(cudaError_t rc, const std::string& what) {
  if (rc == cudaSuccess) return;
  throw check_failed(what + ": " + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
}

namespace {

/// True when libcuda.so.1 can be loaded (it is only probed: dlclose'd again).
bool driver_library_present() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return false;
  dlclose(h);
  return true;
}

}  // namespace

std::string cuda_unavailable_reason() {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    // Without libcuda at all the runtime says "driver version is insufficient": say what is true.
    if (rc == cudaErrorInsufficientDriver && !driver_library_present())
      return "no CUDA driver/GPU: the NVIDIA driver library (libcuda.so.1) is not installed on this machine";
    return std::string("no CUDA driver/GPU: cudaGetDeviceCount failed: ") + cudaGetErrorName(rc) + " (" +
           cudaGetErrorString(rc) + ")";
  }
  if (n == 0) return "no CUDA driver/GPU: the driver reports 0 devices";
  return "";
}

void select_gpu(int index) {
  std::string why = cuda_unavailable_reason();
  if (!why.empty())
    throw check_failed(why, "run kprof on a machine with an NVIDIA GPU and driver; `kprof env` shows what is missing");
  int n = 0;
  cudaGetDeviceCount(&n);
  if (index < 0 || index >= n)
    throw usage_error("--gpu " + std::to_string(index) + " is out of range: " + std::to_string(n) +
                      " device(s) visible (0.." + std::to_string(n - 1) + ")");
  cuda_check(cudaSetDevice(index), "cudaSetDevice(" + std::to_string(index) + ")");
  cuda_check(cudaFree(nullptr), "creating the CUDA context on GPU " + std::to_string(index));
}

std::string gpu_arch(int index) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index);
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::string gpu_name(int index) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) return "unknown";
  return p.name;
}

size_t gpu_l2_bytes(int index) {
  int v = 0;
  cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, index);
  return static_cast<size_t>(v);
}

}  // namespace kprof
