// CUPTI loaded at run time (dlopen), never linked: kprof's binary and its Python extension carry no
// DT_NEEDED on libcupti, so they start where CUPTI is absent (a CPU machine: `analyze`, `compare`)
// and use whichever libcupti.so.13 fits the process: one already loaded (PyTorch's), a newer one
// for the L2 reset (CUPTI 13.4+), PyTorch's nvidia-cuda-cupti wheel, or the toolkit's.
//
// cupti_loader.cpp defines every CUPTI function kprof calls with CUPTI's own signature (hidden
// symbols, so nothing else in the process binds to them); each forwards to the loaded library and
// returns CUPTI_ERROR_NOT_INITIALIZED when none could be loaded. The call sites are CUPTI's API as
// documented.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// What cupti_load() found: the library's path ("" when none loaded), how it was chosen, and every
/// place tried, in order, with why each was passed over.
struct CuptiLoad {
  std::string path;  ///< absolute path of the loaded libcupti.so.13, "" when none
  /// "already loaded", "KPROF_CUPTI_DIR", "kprof cache", "build", "wheel", "conda", "system" or "toolkit"
  std::string source;
  std::vector<std::string> tried;  ///< "DIR: why not" for each place passed over
  /// The profiler libraries loaded from the CUPTI's own folder (libnvperf_host.so,
  /// libnvperf_target.so), or "already loaded: PATH" for one the process had (cupti_loader.cpp).
  std::vector<std::string> companions;
  bool ok() const { return !path.empty(); }
};

/// The places searched for libcupti.so.13 after one already loaded in the process (RTLD_NOLOAD:
/// one process never loads two CUPTIs), first to last, as (folder, source): kprof's own choices,
/// $KPROF_CUPTI_DIR ("KPROF_CUPTI_DIR"), <kprof cache>/cupti/nvidia/cu13/lib ("kprof cache": where
/// `pip install --target <kprof cache>/cupti 'nvidia-cuda-cupti>=13.4,<14'` puts a newer CUPTI),
/// the source build's folder (KPROF_BUILD_CUPTI_DIR, "build"); then cuda-pathfinder's order: the
/// host's folders (core/host.hpp Host::cupti_dirs) ("wheel": nvidia-cuda-cupti wheels on sys.path, newest
/// first), $CONDA_PREFIX/lib ("conda"), the system loader (folder "", "system": dlopen by soname,
/// LD_LIBRARY_PATH and ldconfig), the toolkits ("toolkit": CUDA_HOME, CUDA_PATH, the build's,
/// /usr/local/cuda; lib64 and extras/CUPTI/lib64). No folder twice. Never throws.
std::vector<std::pair<std::string, std::string>> cupti_search_dirs();

/// Loads libcupti once per process (thread-safe) and returns what was loaded. Call it before the
/// first CUDA work of a command that times kernels, before PyTorch is imported, so that PyTorch
/// binds to the same CUPTI (one libcupti.so.13 per process: glibc matches PyTorch's DT_NEEDED by
/// soname). Never throws.
const CuptiLoad& cupti_load();

/// The address of CUPTI function `name` in the loaded library (loads it first), nullptr when no
/// CUPTI is loaded or it lacks the function (an older CUPTI). Never throws.
void* cupti_symbol(const char* name);

}  // namespace kprof
