#include "kernel/guarded_call.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <thread>

#include "core/text.hpp"
#include "kernel/launch_watch.hpp"
#include "python/interpreter.hpp"
#include "core/text.hpp"
#include "core/enum_names.hpp"

namespace kprof {
namespace {

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorTensorMemoryLeak:
      return true;
    default:
      return false;
  }
}

std::string hint_for(cudaError_t e) {
  switch (e) {
    case cudaErrorInvalidConfiguration:
      return "check the grid and block dimensions of the launch: at most 1024 threads per block, grid.y/z at "
             "most 65535, and dynamic shared memory above 48 KiB needs cudaFuncSetAttribute";
    case cudaErrorLaunchOutOfResources:
      return "the block needs more registers or shared memory than an SM has: use fewer threads per block or "
             "__launch_bounds__, or less shared memory";
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice:
      return "the .so has no code for this GPU: rebuild it with -arch set to this GPU's sm_XX (kprof build)";
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
      return "a thread read or wrote outside its buffer (or through a bad pointer): run "
             "`compute-sanitizer --tool memcheck` on the same kprof command to find the line";
    case cudaErrorAssert:
      return "a device-side assert() fired: its message is in the output above";
    default:
      return "run the same kprof command under compute-sanitizer to locate the fault";
  }
}

KernelFault fault_from(cudaError_t e, FaultKind kind, const std::string& where) {
  KernelFault f;
  f.kind = kind;
  f.cuda_error = cudaGetErrorName(e);
  f.message = fmt::format("{}: {} ({})", where, cudaGetErrorName(e), cudaGetErrorString(e));
  f.hint = hint_for(e);
  f.context_lost = is_sticky(e);
  if (f.context_lost) request_hard_exit();
  return f;
}

enum Phase : int { kCalling = 0, kSyncing = 1, kDone = 2 };

struct Shared {
  std::atomic<int> phase{kCalling};
  cudaError_t launch_error = cudaSuccess;
  cudaError_t sync_error = cudaSuccess;
  std::exception_ptr exception;
};

std::optional<KernelFault> wait_worker(std::shared_ptr<Shared> sh, std::future<void>& done, double timeout_s,
                                       const std::string& what) {
  auto limit = std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 1e9);
  if (done.wait_for(limit) != std::future_status::ready) {
    request_hard_exit();
    KernelFault f;
    f.kind = FaultKind::Timeout;
    f.context_lost = true;
    if (sh->phase.load() == kCalling) {
      f.message = fmt::format("{} did not return within {:g} s", what, timeout_s);
      f.hint =
          "the host code waits forever (a synchronisation inside it on a kernel that never ends, or a "
          "deadlock); fix it or raise --timeout";
    } else {
      f.message = fmt::format("the GPU work of {} did not finish within {:g} s", what, timeout_s);
      f.hint =
          "a kernel loops forever or deadlocks (a spin on a flag no one sets, a __syncthreads() not all "
          "threads reach); fix it or raise --timeout for a genuinely long kernel";
    }
    return f;
  }
  if (sh->exception) std::rethrow_exception(sh->exception);
  if (sh->launch_error != cudaSuccess)
    return fault_from(sh->launch_error, FaultKind::LaunchError, "launching " + what + " failed");
  if (sh->sync_error != cudaSuccess)
    return fault_from(sh->sync_error, FaultKind::KernelError, "the kernel of " + what + " failed");
  return std::nullopt;
}

}  // namespace

/// The names of FaultKind (core/enum_names.hpp).
constexpr auto kFaultKindNames = enum_names<FaultKind>({{FaultKind::LaunchError, "launch error"},
                                                        {FaultKind::KernelError, "kernel fault"},
                                                        {FaultKind::Timeout, "timeout"}},
                                                       "fault");

std::string fault_kind_name(FaultKind kind) { return kFaultKindNames.name(kind); }

/// The names of FaultKind (core/enum_names.hpp).
constexpr auto kFaultKindIds = enum_names<FaultKind>({{FaultKind::LaunchError, "launch_error"},
                                                      {FaultKind::KernelError, "kernel_error"},
                                                      {FaultKind::Timeout, "timeout"}},
                                                     "kernel_error");

std::string fault_kind_id(FaultKind kind) { return kFaultKindIds.name(kind); }

std::optional<FaultKind> parse_fault_kind(const std::string& id) { return kFaultKindIds.parse(id); }

std::optional<KernelFault> guarded_call(KernelInstance& inst, double timeout_s) {
  LaunchWatch watch;  // sees launch errors of any CUDA runtime in the process (a .so has its own)
  auto sh = std::make_shared<Shared>();
  const bool python = is_python_impl(inst.implementation());
  std::string what = python ? "run_kernel()" : "solve()";
  int dev = 0;
  cudaGetDevice(&dev);  // the current device is per host thread: the worker must use the caller's
  std::packaged_task<void()> task([sh, &inst, dev, python] {
    try {
      if (python) adopt_python_thread();  // run_kernel() runs Python on this worker thread
      cudaSetDevice(dev);
      cudaGetLastError();  // clear a stale error of this thread
      inst.call();
      sh->launch_error = cudaGetLastError();
      int own = inst.take_launch_error();  // the kernel library's own runtime (static cudart in the .so)
      if (sh->launch_error == cudaSuccess && own != 0) sh->launch_error = static_cast<cudaError_t>(own);
      sh->phase = kSyncing;
      if (sh->launch_error == cudaSuccess) sh->sync_error = cudaDeviceSynchronize();
      sh->phase = kDone;
    } catch (...) {
      sh->exception = std::current_exception();
    }
  });
  std::future<void> done = task.get_future();
  std::thread(std::move(task)).detach();
  auto fault = wait_worker(sh, done, timeout_s, what);
  if (fault && fault->kind == FaultKind::Timeout) return fault;
  if (auto failed = watch.failure()) {
    if (!fault || fault->kind != FaultKind::LaunchError) {
      KernelFault f;
      f.kind = FaultKind::LaunchError;
      f.cuda_error = failed->code_name;
      f.message = fmt::format(
          "launching {}'s kernel{} failed: {} returned {}{}", what,
          failed->kernel.empty() ? "" : " " + display_kernel_name(demangle(failed->kernel)), failed->api,
          failed->code_name,
          failed->driver ? "" : std::string(" (") + cudaGetErrorString(static_cast<cudaError_t>(failed->code)) + ")");
      // A launch rejected as an invalid argument/value is a bad configuration (block > 1024 threads,
      // grid or shared memory out of range): the runtime reports cudaErrorInvalidValue for it.
      bool bad_config = failed->driver
                            ? failed->code == CUDA_ERROR_INVALID_VALUE
                            : (failed->code == cudaErrorInvalidValue || failed->code == cudaErrorInvalidConfiguration);
      f.hint = bad_config ? hint_for(cudaErrorInvalidConfiguration)
                          : hint_for(failed->driver ? cudaErrorUnknown : static_cast<cudaError_t>(failed->code));
      return f;
    }
  }
  return fault;
}

std::optional<KernelFault> guarded_sync(double timeout_s, const std::string& what) {
  auto sh = std::make_shared<Shared>();
  sh->phase = kSyncing;
  int dev = 0;
  cudaGetDevice(&dev);
  std::packaged_task<void()> task([sh, dev] {
    cudaSetDevice(dev);
    sh->sync_error = cudaDeviceSynchronize();
    sh->phase = kDone;
  });
  std::future<void> done = task.get_future();
  std::thread(std::move(task)).detach();
  return wait_worker(sh, done, timeout_s, what);
}

}  // namespace kprof
