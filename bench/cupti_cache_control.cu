// Diagnostic: what CUPTI 13.4+'s range-profiler cache control does to a short kernel's
// gpu__time_duration (ncu's metric), against no cache control, with and without an L2 read flush.
//
// Times 120 launches of a one-block spin of KCYCLES thousand SM cycles (the first 20 dropped), each
// in its own auto range (kernel replay, one pass), as kprof's GPU-duration pass does; prints
//   mode M kc K flush F: median X us (min, max, n)
// M: 0 CUPTI_CACHE_CONTROL_MODE_NONE, 1 _ALL, 2 _L2 (cupti_range_profiler.h, CUDA 13.4+); F: 1 reads
// 200 MiB before each launch (kprof's L2 read flush), 0 not. Results: docs/gpu-runs.md 2026-12-04
// (night): on the H200 mode 1 and 2 read 6.560 us where mode 0 reads 6.400 us (10 k cycles).
// Needs the headers and libcupti of CUPTI 13.4+, e.g. PyPI's nvidia-cuda-cupti wheel unpacked in W:
//   nvcc -O2 -arch=sm_90 -IW/nvidia/cu13/include bench/cupti_cache_control.cu -o cupti_cache_control \
//        -LW/nvidia/cu13/lib -l:libcupti.so.13 -lcuda
//   LD_LIBRARY_PATH=W/nvidia/cu13/lib ./cupti_cache_control MODE KCYCLES FLUSH
// (cupti.h itself is not included: CUPTI 13.5's pulls in CUDA 13.5 runtime declarations.)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_result.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void spin(float* out, long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
  if (threadIdx.x == 0) out[0] = (float)cycles;
}
__global__ void flushk(const uint4* p, size_t n, int never, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) { uint4 v = p[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (never) sink[0] = acc;
}
#define OK(x) do { CUptiResult r_ = (x); if (r_ != CUPTI_SUCCESS) { const char* s_; cuptiGetResultString(r_, &s_); printf("FAIL %s: %s\n", #x, s_); exit(1);} } while (0)
template <class P> P prm(size_t n) { P p{}; p.structSize = n; return p; }

int main(int argc, char** argv) {
  if (argc != 4) {
    printf("usage: %s MODE(0 none, 1 all, 2 l2) KCYCLES FLUSH(0|1)\n", argv[0]);
    return 2;
  }
  int mode = atoi(argv[1]);  // 0 none 1 all 2 l2
  long long kc = atoll(argv[2]);
  int flush = atoi(argv[3]);
  cudaSetDevice(0); cudaFree(0);
  float* out; cudaMalloc(&out, 4);
  size_t fb = 200ull << 20; void* fbuf; cudaMalloc(&fbuf, fb); cudaMemset(fbuf, 1, fb);
  CUcontext ctx; cuCtxGetCurrent(&ctx);
  auto ip = prm<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  OK(cuptiProfilerInitialize(&ip));
  auto cn = prm<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  OK(cuptiDeviceGetChipName(&cn));
  auto ca = prm<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  ca.ctx = ctx; OK(cuptiProfilerGetCounterAvailability(&ca));
  std::vector<uint8_t> avail(ca.counterAvailabilityImageSize); ca.pCounterAvailabilityImage = avail.data();
  OK(cuptiProfilerGetCounterAvailability(&ca));
  auto hi = prm<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER; hi.pChipName = cn.pChipName; hi.pCounterAvailabilityImage = avail.data();
  OK(cuptiProfilerHostInitialize(&hi));
  const char* metric = "gpu__time_duration.sum";
  auto am = prm<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  am.pHostObject = hi.pHostObject; am.ppMetricNames = &metric; am.numMetrics = 1; OK(cuptiProfilerHostConfigAddMetrics(&am));
  auto cs = prm<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  cs.pHostObject = hi.pHostObject; OK(cuptiProfilerHostGetConfigImageSize(&cs));
  std::vector<uint8_t> config(cs.configImageSize);
  auto gi = prm<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  gi.pHostObject = hi.pHostObject; gi.configImageSize = config.size(); gi.pConfigImage = config.data(); OK(cuptiProfilerHostGetConfigImage(&gi));
  auto en = prm<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  en.ctx = ctx; en.cacheControlMode = (CUpti_CacheControl_Mode)mode; OK(cuptiRangeProfilerEnable(&en));
  auto obj = en.pRangeProfilerObject;
  std::vector<double> v;
  for (int i = 0; i < 120; ++i) {
    if (flush) flushk<<<132 * 8, 256>>>((const uint4*)fbuf, fb / 16, 0, nullptr);
    cudaDeviceSynchronize();
    auto ds = prm<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    ds.pRangeProfilerObject = obj; ds.pMetricNames = &metric; ds.numMetrics = 1; ds.maxNumOfRanges = 4; ds.maxNumRangeTreeNodes = 4;
    OK(cuptiRangeProfilerGetCounterDataSize(&ds));
    std::vector<uint8_t> data(ds.counterDataSize);
    auto di = prm<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    di.pRangeProfilerObject = obj; di.counterDataSize = data.size(); di.pCounterData = data.data(); OK(cuptiRangeProfilerCounterDataImageInitialize(&di));
    auto sc = prm<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    sc.pRangeProfilerObject = obj; sc.configSize = config.size(); sc.pConfig = config.data(); sc.counterDataImageSize = data.size();
    sc.pCounterDataImage = data.data(); sc.range = CUPTI_AutoRange; sc.replayMode = CUPTI_KernelReplay; sc.maxRangesPerPass = 4;
    sc.numNestingLevels = 1; sc.minNestingLevel = 1; sc.passIndex = 0; sc.targetNestingLevel = 1; OK(cuptiRangeProfilerSetConfig(&sc));
    auto st = prm<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE); st.pRangeProfilerObject = obj; OK(cuptiRangeProfilerStart(&st));
    spin<<<1, 32>>>(out, kc * 1000);
    cudaDeviceSynchronize();
    auto sp = prm<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE); sp.pRangeProfilerObject = obj; OK(cuptiRangeProfilerStop(&sp));
    auto dd = prm<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE); dd.pRangeProfilerObject = obj; OK(cuptiRangeProfilerDecodeData(&dd));
    auto ev = prm<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    double ns = 0; ev.pHostObject = hi.pHostObject; ev.pCounterDataImage = data.data(); ev.counterDataImageSize = data.size(); ev.rangeIndex = 0;
    ev.ppMetricNames = &metric; ev.numMetrics = 1; ev.pMetricValues = &ns; OK(cuptiProfilerHostEvaluateToGpuValues(&ev));
    if (i >= 20) v.push_back(ns / 1000);
  }
  std::sort(v.begin(), v.end());
  printf("mode %d kc %lld flush %d: median %.3f us (min %.3f max %.3f, n=%zu)\n", mode, kc, flush, v[v.size() / 2], v.front(), v.back(), v.size());
}
