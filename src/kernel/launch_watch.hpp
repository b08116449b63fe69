// Sees the result of every kernel launch in the process, whatever CUDA runtime made it.
//
// An nvcc-built .so links its own static cudart whose symbols are local: a launch error inside
// solve() (e.g. 2048 threads per block) is recorded only in that private runtime, invisible to
// kprof's cudaGetLastError(). CUPTI's callback API sees the launch at the runtime and driver
// layers of every runtime instance (and Triton's direct driver launches) with its return code.
#pragma once

#include <optional>
#include <string>

namespace kprof {

/// The first failed launch seen while a LaunchWatch was active.
struct FailedLaunch {
  std::string api;        ///< "cudaLaunchKernel", "cuLaunchKernel", ...
  std::string kernel;     ///< the kernel's symbol name when CUPTI gives it, else ""
  int code = 0;           ///< cudaError_t (runtime API) or CUresult (driver API) value
  bool driver = false;    ///< true: `code` is a CUresult
  std::string code_name;  ///< "cudaErrorInvalidConfiguration", "CUDA_ERROR_INVALID_VALUE", ...
};

/// While alive, records the first failed kernel launch (cuptiSubscribe + launch callbacks,
/// runtime and driver domains). CUPTI allows one subscriber per process: when subscribing fails
/// (under ncu, or CUPTI missing) the watch is inactive and `note()` says why; nothing else
/// changes. Not copyable.
class LaunchWatch {
 public:
  LaunchWatch();
  ~LaunchWatch();
  LaunchWatch(const LaunchWatch&) = delete;
  LaunchWatch& operator=(const LaunchWatch&) = delete;

  /// True when CUPTI callbacks are on.
  bool active() const { return active_; }
  /// Why it is inactive ("" when active).
  const std::string& note() const { return note_; }
  /// The first failed launch since construction, if any (a runtime-API failure is preferred over
  /// the driver-API failure beneath it: cudaErrorInvalidConfiguration rather than
  /// CUDA_ERROR_INVALID_VALUE).
  std::optional<FailedLaunch> failure() const;

 private:
  bool active_ = false;
  std::string note_;
  void* subscriber_ = nullptr;
};

/// Name of a CUresult value as the driver headers spell it (CUDA_ERROR_INVALID_VALUE), without
/// calling the driver; "CUresult <n>" for values it does not know.
std::string cu_result_name(int code);

}  // namespace kprof
