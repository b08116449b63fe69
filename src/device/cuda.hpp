// Thin helpers over the CUDA runtime shared by every GPU stage.
//
// kprof links cudart statically; cudart loads the driver (libcuda) at run time, so on a machine
// without a driver these helpers return a clear "no CUDA driver/GPU" error instead of failing to
// start.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kprof {

/// Throws Error (exit 1) "<what>: <cuda error name>: <description>" unless `rc` is cudaSuccess.
void cuda_check(cudaError_t rc, const std::string& what);

/// The one line for a driver older than kprof's CUDA runtime: "the NVIDIA driver is too old: driver
/// R570.x supports CUDA 12.8; kprof's CUDA 13 runtime needs R580 or newer. Fix: update ...", from
/// the driver's CUDA version `driver_cuda` (cudaDriverGetVersion, 12080 for 12.8) and the runtime's
/// `runtime_cuda` (CUDART_VERSION); "" when the driver's major version is not older. Never throws.
std::string driver_too_old_reason(int driver_cuda, int runtime_cuda);

/// What kprof's CUDA runtime `runtime_cuda` (CUDART_VERSION, 13000) needs of the driver: "R580 or
/// newer (CUDA 13.x drivers)"; the toolkit release notes' minimum Linux drivers. Never throws.
std::string driver_needed(int runtime_cuda);

/// Why no GPU can be used, or "" when at least one device is visible. Never throws.
/// Examples: "no CUDA driver/GPU: the NVIDIA driver library (libcuda.so.1) is not installed on this
/// machine", "no CUDA driver/GPU: the driver reports 0 devices", or driver_too_old_reason's line.
std::string cuda_unavailable_reason();

/// Makes device `index` current (creating its primary context). Throws Error (exit 1) with
/// "no CUDA driver/GPU ..." when none is present, or (exit 2) when `index` is out of range.
void select_gpu(int index);

/// "sm_90" for compute capability 9.0 (from cudaDevAttrComputeCapabilityMajor/Minor).
std::string gpu_arch(int index);

/// The device name (cudaDeviceProp::name).
std::string gpu_name(int index);

/// L2 cache size in bytes (cudaDevAttrL2CacheSize).
size_t gpu_l2_bytes(int index);

/// True once a kernel hung or the CUDA context was lost: no further CUDA work may be waited for.
/// cudaFree synchronises the device, so kprof's destructors skip it (device_free), and main()
/// leaves through _Exit once the reports are written.
bool hard_exit_requested();

/// Marks that the process must leave through _Exit (see hard_exit_requested).
void request_hard_exit();

/// When hard_exit_requested(): flushes stdout/stderr and ends the process with `code` at once
/// (std::_Exit: no destructor may wait for the stuck GPU). Otherwise returns `code`.
int exit_now_if_stuck(int code);

/// Ends the process with `code` at once after flushing stdout and stderr (std::_Exit), for a
/// command that has finished: its reports are written and closed. The teardown it skips (the
/// CUDA runtime's, CUPTI's and NVML's exit handlers, static destructors) took about 0.5 s of a
/// `kprof run` on the H200 (bench/RESULTS.md (g)); the driver frees the process's GPU
/// resources anyway, and child processes (chart workers) end when their pipes close.
[[noreturn]] void exit_now(int code);

/// cudaFree(p), unless hard_exit_requested() (then the memory is left to process teardown).
void device_free(void* p);

}  // namespace kprof
