// Diagnostic: does collecting CUPTI kernel records change the kernel it times?
//
// One process per CUPTI mode (argv[1]); for each vector-add variant and size it times 100 calls,
// each after an L2 read flush (as kprof does), with CUDA events around the launch and, where the
// mode collects kernel records, CUPTI's start/end of the same kernel. Prints one TSV line per case:
//   mode  kernel  N  event_median_us  cupti_median_us  cupti_minus_event_us
// Kernels: one_per_thread and grid_stride (c = a + b), in_place (c += 1, one element per thread).
// Modes: none | conc (CONCURRENT_KERNEL only) | serial (KIND_KERNEL only) |
//        kprof (CONCURRENT_KERNEL + RUNTIME + DRIVER + MEMSET: kprof's set) | callbacks (launch callbacks only) |
//        primed (KIND_KERNEL, an empty kernel launched right before each timed one, after the flush's sync) |
//        queued (KIND_KERNEL, the timed kernel queued right behind the flush, no sync between):
//        whether the ~0.4 us that serialized records add over ncu's duration is the start on an idle GPU |
//        range (no activity records: CUPTI's range profiler reads gpu__time_duration.sum, ncu's metric, for a
//        user range around each timed launch; one pass, so no replay): whether kprof could time kernels as ncu does |
//        autorange (the same metric, CUPTI_AutoRange + CUPTI_KernelReplay: one range per kernel, started and
//        stopped around each timed launch, as ncu's kernel replay does) |
//        autorange-l2 (autorange with the range profiler's cache control, CUPTI_CACHE_CONTROL_MODE_ALL: the L2
//        reset before each kernel that CUPTI 13.4+ offers and kprof asks for; run it with a 13.4+ libcupti
//        first on LD_LIBRARY_PATH, e.g. PyPI's nvidia-cuda-cupti unpacked, else it exits 2)
// Usage: cupti_probe MODE [ITERS [noflush]]   (run it under ncu with mode none and a few iterations to get
// gpu__time_duration of the same kernels)
// Build: nvcc -O3 -arch=sm_90 -o cupti_probe bench/cupti_probe.cu -lcupti -lcuda
#include <cuda_runtime.h>
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

__global__ void vadd_one_per_thread(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void vadd_grid_stride(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c[i] = a[i] + b[i];
}

__global__ void vadd_in_place(float* c, int n) {  // c[i] += 1: leaves its lines dirty in L2
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] += 1.0f;
}

__global__ void prime_empty() {}

__global__ void read_all(const uint4* p, size_t n, int never, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (never) sink[0] = acc;
}

std::mutex g_mu;
std::vector<std::pair<uint64_t, uint64_t>> g_kernels;  // (start, end) of vadd kernels only

void CUPTIAPI buf_req(uint8_t** b, size_t* s, size_t* m) {
  *b = static_cast<uint8_t*>(std::aligned_alloc(8, 8 << 20));
  *s = 8 << 20;
  *m = 0;
}
void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t* b, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  std::lock_guard<std::mutex> l(g_mu);
  while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(r);
      if (k->name && std::strstr(k->name, "vadd")) g_kernels.emplace_back(uint64_t{k->start}, uint64_t{k->end});
    }
  }
  std::free(b);
}
void CUPTIAPI on_cb(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

#define CP(x)                                              \
  do {                                                     \
    CUptiResult r_ = (x);                                  \
    if (r_ != CUPTI_SUCCESS) {                             \
      const char* m_ = nullptr;                            \
      cuptiGetResultString(r_, &m_);                       \
      std::fprintf(stderr, "%s: %s\n", #x, m_ ? m_ : "?"); \
      std::exit(1);                                        \
    }                                                      \
  } while (0)

// CUPTI's range profiler with one metric, gpu__time_duration.sum (ns), one user range per timed launch.
struct RangeTimer {
  const char* metric = "gpu__time_duration.sum";
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* obj = nullptr;
  std::vector<uint8_t> config, data;
  size_t max_ranges = 0;
  bool auto_range = false;

  // CUpti_RangeProfiler_Enable_Params as CUPTI 13.4 extended it (kprof's copy:
  // src/stages/timing/gpu_duration.hpp RangeProfilerEnableParams), so this file still builds against
  // CUDA 13.0's headers.
  struct EnableWithCacheControl {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    int32_t cacheControlMode;  // 1: CUPTI_CACHE_CONTROL_MODE_ALL
  };

  RangeTimer(size_t ranges, bool per_kernel, bool reset_l2 = false) : max_ranges(ranges), auto_range(per_kernel) {
    CUpti_Profiler_Initialize_Params ip{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CP(cuptiProfilerInitialize(&ip));
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cn.deviceIndex = 0;
    CP(cuptiDeviceGetChipName(&cn));
    CUpti_Profiler_GetCounterAvailability_Params ca{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ca.ctx = ctx;
    CP(cuptiProfilerGetCounterAvailability(&ca));
    std::vector<uint8_t> avail(ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = avail.data();
    CP(cuptiProfilerGetCounterAvailability(&ca));
    CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = cn.pChipName;
    hi.pCounterAvailabilityImage = avail.data();
    CP(cuptiProfilerHostInitialize(&hi));
    host = hi.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    am.pHostObject = host;
    am.ppMetricNames = &metric;
    am.numMetrics = 1;
    CP(cuptiProfilerHostConfigAddMetrics(&am));
    CUpti_Profiler_Host_GetConfigImageSize_Params cs{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    cs.pHostObject = host;
    CP(cuptiProfilerHostGetConfigImageSize(&cs));
    config.resize(cs.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params gi{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gi.pHostObject = host;
    gi.configImageSize = config.size();
    gi.pConfigImage = config.data();
    CP(cuptiProfilerHostGetConfigImage(&gi));
    uint32_t version = 0;
    cuptiGetVersion(&version);
    if (reset_l2 && version < 130400) {
      std::fprintf(stderr, "cache control needs CUPTI 13.4+ (this libcupti: %u)\n", version);
      std::exit(2);
    }
    EnableWithCacheControl en{reset_l2 ? offsetof(EnableWithCacheControl, cacheControlMode) + sizeof(int32_t)
                                       : CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
                              nullptr, ctx, nullptr, reset_l2 ? 1 : 0};
    CP(cuptiRangeProfilerEnable(reinterpret_cast<CUpti_RangeProfiler_Enable_Params*>(&en)));
    obj = en.pRangeProfilerObject;
  }
  // Before a batch of at most max_ranges ranges.
  void start() {
    CUpti_RangeProfiler_GetCounterDataSize_Params ds{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    ds.pRangeProfilerObject = obj;
    ds.pMetricNames = &metric;
    ds.numMetrics = 1;
    ds.maxNumOfRanges = max_ranges;
    ds.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
    CP(cuptiRangeProfilerGetCounterDataSize(&ds));
    data.assign(ds.counterDataSize, 0);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    di.pRangeProfilerObject = obj;
    di.counterDataSize = data.size();
    di.pCounterData = data.data();
    CP(cuptiRangeProfilerCounterDataImageInitialize(&di));
    CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = obj;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data();
    sc.range = auto_range ? CUPTI_AutoRange : CUPTI_UserRange;
    sc.replayMode = auto_range ? CUPTI_KernelReplay : CUPTI_UserReplay;
    sc.maxRangesPerPass = max_ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CP(cuptiRangeProfilerSetConfig(&sc));
    CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = obj;
    CP(cuptiRangeProfilerStart(&st));
  }
  void push() {
    CUpti_RangeProfiler_PushRange_Params pr{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    pr.pRangeProfilerObject = obj;
    pr.pRangeName = "call";
    CP(cuptiRangeProfilerPushRange(&pr));
  }
  void pop() {
    CUpti_RangeProfiler_PopRange_Params pp{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pp.pRangeProfilerObject = obj;
    CP(cuptiRangeProfilerPopRange(&pp));
  }
  // After the batch: one gpu__time_duration (us) per range.
  std::vector<double> stop() {
    CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = obj;
    CP(cuptiRangeProfilerStop(&sp));
    if (!sp.isAllPassSubmitted) std::fprintf(stderr, "range profiler: more than one pass needed\n");
    CUpti_RangeProfiler_DecodeData_Params dd{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dd.pRangeProfilerObject = obj;
    CP(cuptiRangeProfilerDecodeData(&dd));
    if (dd.numOfRangeDropped) std::fprintf(stderr, "range profiler: %zu ranges dropped\n", dd.numOfRangeDropped);
    CUpti_RangeProfiler_GetCounterDataInfo_Params ci{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ci.pCounterDataImage = data.data();
    ci.counterDataImageSize = data.size();
    CP(cuptiRangeProfilerGetCounterDataInfo(&ci));
    std::vector<double> us;
    for (size_t r = 0; r < ci.numTotalRanges; ++r) {
      double ns = 0;
      CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
      ev.pHostObject = host;
      ev.pCounterDataImage = data.data();
      ev.counterDataImageSize = data.size();
      ev.rangeIndex = r;
      ev.ppMetricNames = &metric;
      ev.numMetrics = 1;
      ev.pMetricValues = &ns;
      CP(cuptiProfilerHostEvaluateToGpuValues(&ev));
      us.push_back(ns / 1000.0);
    }
    return us;
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "none";
  const int iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const bool flush_l2 = !(argc > 3 && std::strcmp(argv[3], "noflush") == 0);
  CK(cudaFree(nullptr));
  std::vector<CUpti_ActivityKind> kinds;
  if (mode == "conc")
    kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  else if (mode == "serial" || mode == "primed" || mode == "queued")
    kinds = {CUPTI_ACTIVITY_KIND_KERNEL};
  else if (mode == "kprof")
    kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
             CUPTI_ACTIVITY_KIND_MEMSET};
  CUpti_SubscriberHandle sub{};
  if (mode == "callbacks") {
    cuptiSubscribe(&sub, on_cb, nullptr);
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  if (!kinds.empty()) cuptiActivityRegisterCallbacks(buf_req, buf_done);
  for (auto k : kinds)
    if (cuptiActivityEnable(k) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "cuptiActivityEnable failed\n");
      return 1;
    }

  RangeTimer* range = mode == "range" ? new RangeTimer(static_cast<size_t>(iters), false) : nullptr;
  RangeTimer* autorange =
      mode == "autorange" || mode == "autorange-l2" ? new RangeTimer(1, true, mode == "autorange-l2") : nullptr;
  int l2 = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t flush_bytes = 2 * static_cast<size_t>(l2);
  void* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMemset(flush, 1, flush_bytes));
  const int max_n = 64 << 20;
  float *a, *b, *c;
  CK(cudaMalloc(&a, max_n * 4));
  CK(cudaMalloc(&b, max_n * 4));
  CK(cudaMalloc(&c, max_n * 4));
  CK(cudaMemset(a, 0, max_n * 4));
  CK(cudaMemset(b, 0, max_n * 4));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  // l2 / 24 floats: the three buffers together fill half the L2, so without a flush they stay there;
  // l2 / 12 floats: one buffer of a third of the L2 (kprof's GPU test of the flush, in place).
  for (int n : {1 << 10, 1 << 20, l2 / 24, l2 / 12, 64 << 20}) {
    for (int variant = 0; variant < 3; ++variant) {
      auto launch = [&] {
        if (variant == 0)
          vadd_one_per_thread<<<(n + 255) / 256, 256>>>(a, b, c, n);
        else if (variant == 1)
          vadd_grid_stride<<<std::min((n + 255) / 256, sms * 8), 256>>>(a, b, c, n);
        else
          vadd_in_place<<<(n + 255) / 256, 256>>>(c, n);
      };
      for (int w = 0; w < 10; ++w) launch();
      CK(cudaDeviceSynchronize());
      if (!kinds.empty()) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::lock_guard<std::mutex> l(g_mu);
        g_kernels.clear();
      }
      std::vector<double> ev, auto_us;
      if (range) range->start();
      for (int i = 0; i < iters; ++i) {
        if (flush_l2) read_all<<<sms * 8, 256>>>(static_cast<const uint4*>(flush), flush_bytes / 16, 0, nullptr);
        if (mode != "queued") CK(cudaDeviceSynchronize());
        if (mode == "primed") prime_empty<<<1, 32>>>();
        CK(cudaEventRecord(e0));
        if (range) range->push();
        if (autorange) autorange->start();
        launch();
        if (range) range->pop();
        CK(cudaEventRecord(e1));
        if (autorange) {
          std::vector<double> one = autorange->stop();
          auto_us.insert(auto_us.end(), one.begin(), one.end());
        }
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ev.push_back(ms * 1000.0);
      }
      std::vector<double> cu;
      if (range) cu = range->stop();
      if (autorange) cu = auto_us;
      if (!kinds.empty()) {
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::lock_guard<std::mutex> l(g_mu);
        for (auto& k : g_kernels) cu.push_back((k.second - k.first) / 1000.0);
      }
      const double me = median(ev), mc = median(cu);
      std::printf("%s%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%zu\n", mode.c_str(), flush_l2 ? "" : "+noflush",
                  variant == 0   ? "one_per_thread"
                  : variant == 1 ? "grid_stride"
                                 : "in_place",
                  n, me, mc, cu.empty() ? 0.0 : mc - me, cu.size());
    }
  }
  for (auto k : kinds) cuptiActivityDisable(k);
  return 0;
}
