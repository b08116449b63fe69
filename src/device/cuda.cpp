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

/// The Linux driver branch that first supports CUDA `version` (1000*major + 10*minor), from the
/// CUDA toolkit release notes' table of minimum drivers; 0 when not in the table.
int driver_branch_for(int version) {
  static const int kTable[][2] = {{11080, 520}, {12000, 525}, {12010, 530}, {12020, 535}, {12030, 545}, {12040, 550},
                                  {12050, 555}, {12060, 560}, {12080, 570}, {12090, 575}, {13000, 580}, {13010, 590}};
  for (const auto& row : kTable)
    if (row[0] == version) return row[1];
  return 0;
}

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

/// How driver_too_old_reason's line begins (select_gpu gives such a line no second fix).
constexpr const char* kDriverTooOld = "the NVIDIA driver is too old: driver ";

}  // namespace

std::string driver_needed(int runtime_cuda) {
  const int major = runtime_cuda / 1000, branch = driver_branch_for(major * 1000);
  return (branch ? "R" + std::to_string(branch) + " or newer" : "a driver supporting CUDA " + std::to_string(major)) +
         " (drivers for CUDA " + std::to_string(major) + ".x or later)";
}

std::string driver_too_old_reason(int driver_cuda, int runtime_cuda) {
  if (driver_cuda <= 0 || driver_cuda / 1000 >= runtime_cuda / 1000) return "";
  const int needed = (runtime_cuda / 1000) * 1000;  // minor-version compatibility: any X.0 driver runs X.y
  const int found_branch = driver_branch_for(driver_cuda), needed_branch = driver_branch_for(needed);
  const std::string found = found_branch ? "R" + std::to_string(found_branch) + ".x" : "";
  const std::string need = needed_branch ? "R" + std::to_string(needed_branch) + " or newer"
                                         : "a driver supporting CUDA " + cuda_version_text(needed);
  return kDriverTooOld + (found.empty() ? "" : found + " ") + "supports CUDA " + cuda_version_text(driver_cuda) +
         "; kprof's CUDA " + std::to_string(runtime_cuda / 1000) + " runtime needs " + need +
         ". Fix: update the NVIDIA driver to " + need +
         " (a CUDA 12 PyTorch runs on it too: newer drivers run older CUDA)";
}

std::string cuda_unavailable_reason() {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    // Without libcuda at all the runtime says "driver version is insufficient": say what is true.
    if (rc == cudaErrorInsufficientDriver && !driver_library_present())
      return "no CUDA driver/GPU: the NVIDIA driver library (libcuda.so.1) is not installed on this machine";
    // A driver older than the runtime kprof carries (CUDART_VERSION): what it supports and what is
    // needed, in one line (the runtime itself asked libcuda's cuDriverGetVersion).
    int driver = 0;
    if (rc == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess) {
      std::string old = driver_too_old_reason(driver, CUDART_VERSION);
      if (!old.empty()) return old;
    }
    cudaGetLastError();
    return std::string("no CUDA driver/GPU: cudaGetDeviceCount failed: ") + cudaGetErrorName(rc) + " (" +
           cudaGetErrorString(rc) + ")";
  }
  if (n == 0) return "no CUDA driver/GPU: the driver reports 0 devices";
  return "";
}

void select_gpu(int index) {
  std::string why = cuda_unavailable_reason();
  if (!why.empty()) {
    // A driver that is there but too old carries its own fix in `why`: no hint pointing elsewhere.
    if (why.rfind(kDriverTooOld, 0) == 0)
      throw check_failed(why, "`kprof env` lists the rest of what this machine has");
    throw check_failed(why, "run kprof on a machine with an NVIDIA GPU and driver; `kprof env` shows what is missing");
  }
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
