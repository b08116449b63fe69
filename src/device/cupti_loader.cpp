// CUPTI through dlopen (device/cupti_loader.hpp): the search and the forwarding definitions.
#include "device/cupti_loader.hpp"

#include "core/host.hpp"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <utility>

#include "core/fs.hpp"
#include "core/settings.hpp"

namespace kprof {
namespace {

constexpr const char* kSoname = "libcupti.so.13";

std::mutex g_mu;
CuptiLoad* g_load = nullptr;
void* g_handle = nullptr;

std::string loaded_path(void* handle) {
  void* sym = dlsym(handle, "cuptiGetVersion");
  Dl_info info{};
  if (!sym || dladdr(sym, &info) == 0 || !info.dli_fname) return kSoname;
  return info.dli_fname;
}

/// The first libcupti.so.13 that loads, in cupti_search_dirs()' order (or the one in the process).
CuptiLoad find_and_load() {
  CuptiLoad out;
  // A copy already in the process (PyTorch's, loaded by `import torch`) must be the one used: a
  // second libcupti.so.13 in one process would split CUPTI's state in two.
  if (void* h = dlopen(kSoname, RTLD_NOW | RTLD_NOLOAD)) {
    g_handle = h;
    out.path = loaded_path(h);
    out.source = "already loaded";
    return out;
  }
  for (const auto& [dir, source] : cupti_search_dirs()) {
    if (dir.empty()) {  // the system loader: LD_LIBRARY_PATH, the ldconfig cache, the default folders
      if (void* h = dlopen(kSoname, RTLD_NOW | RTLD_GLOBAL)) {
        g_handle = h;
        out.path = loaded_path(h);
        out.source = source;
        return out;
      }
      out.tried.push_back(std::string("system loader: no ") + kSoname);
      continue;
    }
    std::string lib = join_path(dir, kSoname);
    if (!path_exists(lib)) {
      out.tried.push_back(dir + ": no " + kSoname);
      continue;
    }
    if (void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      g_handle = h;
      out.path = lib;
      out.source = source;
      return out;
    }
    const char* why = dlerror();
    out.tried.push_back(dir + ": " + (why ? why : "dlopen failed"));
  }
  return out;
}

/// Loads the profiler libraries beside the CUPTI in `dir` (libnvperf_host.so, libnvperf_target.so)
/// by their full paths, unless a library of that soname is already in the process. libcupti has no
/// RUNPATH and opens them by name when the range profiler starts, so without this it takes whichever
/// the system loader finds first ($LD_LIBRARY_PATH, ldconfig): another CUDA release's, beside a CUPTI
/// that was found elsewhere (a wheel's). Adds "path" or "already loaded: path" to out.companions.
void load_companions(const std::string& dir, CuptiLoad& out) {
  const std::pair<const char*, const char*> libs[] = {{"libnvperf_host.so", "NVPW_InitializeHost"},
                                                      {"libnvperf_target.so", "NVPW_InitializeTarget"}};
  for (const auto& [name, symbol] : libs) {
    if (void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) {
      Dl_info info{};
      void* sym = dlsym(h, symbol);
      const bool named = sym && dladdr(sym, &info) != 0 && info.dli_fname;
      out.companions.push_back(std::string("already loaded: ") + (named ? info.dli_fname : name));
      continue;
    }
    const std::string lib = join_path(dir, name);
    if (path_exists(lib) && dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL)) out.companions.push_back(lib);
  }
}

CuptiLoad load_now() {
  CuptiLoad out = find_and_load();
  if (out.ok()) load_companions(parent_dir(out.path), out);
  return out;
}

void add_dir(std::vector<std::pair<std::string, std::string>>& dirs, const std::string& dir, const char* source) {
  if (dir.empty()) return;
  for (const auto& d : dirs)
    if (d.first == dir) return;
  dirs.emplace_back(dir, source);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> cupti_search_dirs() {
  std::vector<std::pair<std::string, std::string>> dirs;
  const Settings& s = settings();
  // kprof's own choices first (documented: docs/INSTALL.md "CUPTI"), ...
  add_dir(dirs, s.cupti_dir, "KPROF_CUPTI_DIR");
  add_dir(dirs, join_path(kprof_cache_dir(), "cupti/nvidia/cu13/lib"), "kprof cache");
#ifdef KPROF_BUILD_CUPTI_DIR
  add_dir(dirs, KPROF_BUILD_CUPTI_DIR, "build");
#endif
  // ... then cuda-pathfinder's order (load_nvidia_dynamic_lib): the NVIDIA wheels on sys.path,
  // conda, the system loader, CUDA_HOME / CUDA_PATH; then the build's toolkit and /usr/local/cuda.
  for (const auto& d : current_host().cupti_dirs) add_dir(dirs, d, "wheel");
  if (const char* conda = std::getenv("CONDA_PREFIX"); conda && *conda) add_dir(dirs, join_path(conda, "lib"), "conda");
  dirs.emplace_back("", "system");
  std::vector<std::string> roots = s.cuda_roots;
#ifdef KPROF_CUDA_BIN_DIR
  roots.push_back(parent_dir(KPROF_CUDA_BIN_DIR));
#endif
  roots.push_back("/usr/local/cuda");
  for (const auto& r : roots) {
    add_dir(dirs, join_path(r, "lib64"), "toolkit");
    add_dir(dirs, join_path(r, "extras/CUPTI/lib64"), "toolkit");
  }
  return dirs;
}

const CuptiLoad& cupti_load() {
  static std::once_flag once;
  std::call_once(once, [] { g_load = new CuptiLoad(load_now()); });
  return *g_load;
}

void* cupti_symbol(const char* name) {
  if (!cupti_load().ok()) return nullptr;
  return dlsym(g_handle, name);
}

}  // namespace kprof

// ---- CUPTI's functions, forwarded (this file is compiled with hidden visibility: CMakeLists.txt) --
#define KPROF_CUPTI_FORWARD(name, params, args)                                                   \
  extern "C" CUptiResult CUPTIAPI name params {                                                   \
    static auto fn = reinterpret_cast<CUptiResult(CUPTIAPI*) params>(kprof::cupti_symbol(#name)); \
    return fn ? fn args : CUPTI_ERROR_NOT_INITIALIZED;                                            \
  }
#define KPROF_CUPTI_PARAMS(name, type) KPROF_CUPTI_FORWARD(name, (type * p), (p))

KPROF_CUPTI_FORWARD(cuptiGetVersion, (uint32_t * version), (version))
KPROF_CUPTI_FORWARD(cuptiActivityFlushAll, (uint32_t flag), (flag))
KPROF_CUPTI_FORWARD(cuptiGetTimestamp, (uint64_t * timestamp), (timestamp))
extern "C" CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  static auto fn =
      reinterpret_cast<CUptiResult(CUPTIAPI*)(CUptiResult, const char**)>(kprof::cupti_symbol("cuptiGetResultString"));
  if (fn) return fn(result, str);
  if (str) *str = "CUPTI is not loaded (no libcupti.so.13 found: kprof env)";
  return CUPTI_ERROR_NOT_INITIALIZED;
}
KPROF_CUPTI_FORWARD(cuptiActivityRegisterCallbacks,
                    (CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed),
                    (requested, completed))
KPROF_CUPTI_FORWARD(cuptiSubscribe, (CUpti_SubscriberHandle * subscriber, CUpti_CallbackFunc callback, void* userdata),
                    (subscriber, callback, userdata))
KPROF_CUPTI_FORWARD(cuptiEnableDomain,
                    (uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain),
                    (enable, subscriber, domain))
KPROF_CUPTI_FORWARD(cuptiUnsubscribe, (CUpti_SubscriberHandle subscriber), (subscriber))
KPROF_CUPTI_FORWARD(cuptiActivityGetNumDroppedRecords, (CUcontext context, uint32_t stream, size_t* dropped),
                    (context, stream, dropped))
KPROF_CUPTI_FORWARD(cuptiActivityEnable, (CUpti_ActivityKind kind), (kind))
KPROF_CUPTI_FORWARD(cuptiActivityDisable, (CUpti_ActivityKind kind), (kind))
KPROF_CUPTI_FORWARD(cuptiActivityGetNextRecord, (uint8_t * buffer, size_t valid_bytes, CUpti_Activity** record),
                    (buffer, valid_bytes, record))
KPROF_CUPTI_PARAMS(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params)
KPROF_CUPTI_PARAMS(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params)
KPROF_CUPTI_PARAMS(cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params)
