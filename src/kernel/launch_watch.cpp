#include "kernel/launch_watch.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <mutex>

namespace kprof {
namespace {

std::mutex g_mu;
std::optional<FailedLaunch> g_first_runtime;  // guarded by g_mu; reset per watch
std::optional<FailedLaunch> g_first_driver;

bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (id) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
      case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
      case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
        return true;
      default:
        return false;
    }
  }
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return true;
    default:
      return false;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (!is_launch(domain, id)) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite != CUPTI_API_EXIT || info->functionReturnValue == nullptr) return;
  bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
  int code = driver ? static_cast<int>(*static_cast<const CUresult*>(info->functionReturnValue))
                    : static_cast<int>(*static_cast<const cudaError_t*>(info->functionReturnValue));
  if (code == 0) return;
  std::lock_guard<std::mutex> lock(g_mu);
  auto& slot = driver ? g_first_driver : g_first_runtime;
  if (slot) return;
  FailedLaunch f;
  f.api = info->functionName ? info->functionName : "";
  f.kernel = info->symbolName ? info->symbolName : "";
  f.code = code;
  f.driver = driver;
  f.code_name = driver ? cu_result_name(code) : cudaGetErrorName(static_cast<cudaError_t>(code));
  slot = f;
}

}  // namespace

std::string cu_result_name(int code) {
  switch (code) {
    case CUDA_ERROR_INVALID_VALUE:
      return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_INVALID_IMAGE:
      return "CUDA_ERROR_INVALID_IMAGE";
    case CUDA_ERROR_INVALID_CONTEXT:
      return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case CUDA_ERROR_INVALID_HANDLE:
      return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_NOT_FOUND:
      return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING:
      return "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING";
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
      return "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case CUDA_ERROR_LAUNCH_FAILED:
      return "CUDA_ERROR_LAUNCH_FAILED";
    default:
      return "CUresult " + std::to_string(code);
  }
}

LaunchWatch::LaunchWatch() {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_first_runtime.reset();
    g_first_driver.reset();
  }
  CUpti_SubscriberHandle sub = nullptr;
  CUptiResult rc = cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
  if (rc != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(rc, &s);
    note_ = std::string("CUPTI callbacks unavailable (") + (s ? s : "?") +
            "): launch errors inside a .so's own "
            "runtime cannot be seen";
    return;
  }
  subscriber_ = sub;
  cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  active_ = true;
}

LaunchWatch::~LaunchWatch() {
  if (subscriber_) cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
}

std::optional<FailedLaunch> LaunchWatch::failure() const {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_first_runtime ? g_first_runtime : g_first_driver;  // the runtime's name is the one users know
}

}  // namespace kprof
