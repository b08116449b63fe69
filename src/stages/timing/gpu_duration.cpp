#include "stages/timing/gpu_duration.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdint>

#include "core/error.hpp"

namespace kprof {

namespace {

constexpr const char* kMetric = kGpuDurationMetric;

/// A CUPTI parameter struct zeroed, with its size set (CUPTI's versioning of the struct).
template <class P>
P params(size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

void cupti_ok(CUptiResult rc, const char* what) {
  if (rc == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  cuptiGetResultString(rc, &s);
  std::string hint;
  if (rc == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    hint =
        "the GPU performance counters are restricted to admin users (as for ncu: `kprof env` says how to allow them)";
  throw CuptiRangeError(std::string("CUPTI range profiler: ") + what + ": " + (s ? s : "error"), hint);
}

/// The current CUDA context, through the runtime's driver entry point (kprof does not link libcuda).
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess || !fn) {
    cudaGetLastError();
    throw CuptiRangeError("CUPTI range profiler: the driver has no cuCtxGetCurrent");
  }
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    throw CuptiRangeError("CUPTI range profiler: no current CUDA context");
  return ctx;
}

// kprof's copy of the extended struct must start as CUPTI's own does.
static_assert(offsetof(RangeProfilerEnableParams, ctx) == offsetof(CUpti_RangeProfiler_Enable_Params, ctx));
static_assert(offsetof(RangeProfilerEnableParams, pRangeProfilerObject) ==
              offsetof(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject));
static_assert(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE <= sizeof(RangeProfilerEnableParams));

}  // namespace

/// Owns what the constructor set up, so a constructor that throws half way (no permission at
/// enable, a second pass needed) still disables and deinitializes what it had.
struct GpuDurationTimer::State {
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* obj = nullptr;
  std::vector<uint8_t> config, data;
  size_t data_size = 0;  ///< the counter data image's size (cuptiRangeProfilerGetCounterDataSize)
  const char* metric = kMetric;
  uint32_t cupti_version = 0;
  bool cache_control = false;

  ~State() {
    if (obj) {
      auto d = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      d.pRangeProfilerObject = obj;
      cuptiRangeProfilerDisable(&d);
    }
    if (host) {
      auto d = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      d.pHostObject = host;
      cuptiProfilerHostDeinitialize(&d);
    }
  }
};

GpuDurationTimer::GpuDurationTimer(int device, bool reset_l2) : s_(std::make_unique<State>()) {
  auto ip = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  cupti_ok(cuptiProfilerInitialize(&ip), "initialize");
  CUcontext ctx = current_context();
  auto cn = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  cn.deviceIndex = static_cast<size_t>(device);
  cupti_ok(cuptiDeviceGetChipName(&cn), "chip name");
  auto ca =
      params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  ca.ctx = ctx;
  cupti_ok(cuptiProfilerGetCounterAvailability(&ca), "counter availability");
  std::vector<uint8_t> avail(ca.counterAvailabilityImageSize);
  ca.pCounterAvailabilityImage = avail.data();
  cupti_ok(cuptiProfilerGetCounterAvailability(&ca), "counter availability");
  auto hi = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = cn.pChipName;
  hi.pCounterAvailabilityImage = avail.data();
  cupti_ok(cuptiProfilerHostInitialize(&hi), "host initialize");
  s_->host = hi.pHostObject;
  auto am =
      params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  am.pHostObject = s_->host;
  am.ppMetricNames = &s_->metric;
  am.numMetrics = 1;
  cupti_ok(cuptiProfilerHostConfigAddMetrics(&am), std::string("add ").append(kMetric).c_str());
  auto cs =
      params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  cs.pHostObject = s_->host;
  cupti_ok(cuptiProfilerHostGetConfigImageSize(&cs), "config image size");
  s_->config.resize(cs.configImageSize);
  auto gi = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  gi.pHostObject = s_->host;
  gi.configImageSize = s_->config.size();
  gi.pConfigImage = s_->config.data();
  cupti_ok(cuptiProfilerHostGetConfigImage(&gi), "config image");
  auto np = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  np.configImageSize = s_->config.size();
  np.pConfigImage = s_->config.data();
  cupti_ok(cuptiProfilerHostGetNumOfPasses(&np), "pass count");
  if (np.numOfPasses != 1)
    throw CuptiRangeError("CUPTI range profiler: " + std::string(kMetric) + " needs " + std::to_string(np.numOfPasses) +
                          " passes on this GPU (kprof times in one)");
  s_->cupti_version = cupti_api_version();
  s_->cache_control = reset_l2 && cupti_has_cache_control(s_->cupti_version);
  RangeProfilerEnableParams en;
  en.structSize = range_profiler_enable_size(s_->cache_control);
  en.ctx = ctx;
  if (s_->cache_control) en.cacheControlMode = kCuptiCacheControlAll;
  cupti_ok(cuptiRangeProfilerEnable(reinterpret_cast<CUpti_RangeProfiler_Enable_Params*>(&en)), "enable");
  s_->obj = static_cast<CUpti_RangeProfiler_Object*>(en.pRangeProfilerObject);
}

bool GpuDurationTimer::cache_control() const { return s_->cache_control; }

uint32_t GpuDurationTimer::cupti_version() const { return s_->cupti_version; }

GpuDurationTimer::~GpuDurationTimer() = default;

void GpuDurationTimer::begin() {
  if (s_->data_size == 0) {  // the same for every call: asked once
    auto ds = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    ds.pRangeProfilerObject = s_->obj;
    ds.pMetricNames = &s_->metric;
    ds.numMetrics = 1;
    ds.maxNumOfRanges = kMaxKernelsPerCall;
    ds.maxNumRangeTreeNodes = static_cast<uint32_t>(kMaxKernelsPerCall);
    cupti_ok(cuptiRangeProfilerGetCounterDataSize(&ds), "counter data size");
    s_->data_size = ds.counterDataSize;
  }
  s_->data.assign(s_->data_size, 0);
  auto di = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  di.pRangeProfilerObject = s_->obj;
  di.counterDataSize = s_->data.size();
  di.pCounterData = s_->data.data();
  cupti_ok(cuptiRangeProfilerCounterDataImageInitialize(&di), "counter data image");
  auto sc = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  sc.pRangeProfilerObject = s_->obj;
  sc.configSize = s_->config.size();
  sc.pConfig = s_->config.data();
  sc.counterDataImageSize = s_->data.size();
  sc.pCounterDataImage = s_->data.data();
  sc.range = CUPTI_AutoRange;
  sc.replayMode = CUPTI_KernelReplay;
  sc.maxRangesPerPass = kMaxKernelsPerCall;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  cupti_ok(cuptiRangeProfilerSetConfig(&sc), "set config");
  auto st = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  st.pRangeProfilerObject = s_->obj;
  cupti_ok(cuptiRangeProfilerStart(&st), "start");
}

std::vector<KernelDuration> GpuDurationTimer::end() {
  auto sp = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  sp.pRangeProfilerObject = s_->obj;
  cupti_ok(cuptiRangeProfilerStop(&sp), "stop");
  auto dd = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  dd.pRangeProfilerObject = s_->obj;
  cupti_ok(cuptiRangeProfilerDecodeData(&dd), "decode");
  if (dd.numOfRangeDropped)
    throw CuptiRangeError("CUPTI range profiler: " + std::to_string(dd.numOfRangeDropped) +
                          " kernels of one call not read (more than " + std::to_string(kMaxKernelsPerCall) + ")");
  auto ci =
      params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  ci.pCounterDataImage = s_->data.data();
  ci.counterDataImageSize = s_->data.size();
  cupti_ok(cuptiRangeProfilerGetCounterDataInfo(&ci), "counter data info");
  std::vector<KernelDuration> out;
  for (size_t r = 0; r < ci.numTotalRanges; ++r) {
    KernelDuration k;
    auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    ev.pHostObject = s_->host;
    ev.pCounterDataImage = s_->data.data();
    ev.counterDataImageSize = s_->data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = &s_->metric;
    ev.numMetrics = 1;
    ev.pMetricValues = &k.ns;
    cupti_ok(cuptiProfilerHostEvaluateToGpuValues(&ev), "evaluate");
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace kprof
