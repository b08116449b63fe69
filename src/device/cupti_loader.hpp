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
  std::string path;    ///< absolute path of the loaded libcupti.so.13, "" when none
  std::string source;  ///< "already loaded", "KPROF_CUPTI_DIR", "kprof cache", "build", "wheel", "toolkit", "system"
  std::vector<std::string> tried;  ///< "DIR: why not" for each place passed over
  bool ok() const { return !path.empty(); }
};

/// The folders searched for libcupti.so.13 after one already loaded in the process (RTLD_NOLOAD),
/// first to last: $KPROF_CUPTI_DIR; <kprof cache>/cupti/nvidia/cu13/lib (where `pip install
/// --target <kprof cache>/cupti 'nvidia-cuda-cupti>=13.4,<14'` puts a newer CUPTI, docs/USAGE.md);
/// the folder the source build chose (KPROF_BUILD_CUPTI_DIR: scripts/setup.sh --cupti's .cupti/);
/// the host's (core/host.hpp Host::cupti_dirs: the Python package's nvidia-cuda-cupti wheels of
/// its sys.path, newest first); the toolkit's (CUDA_HOME / CUDA_PATH, the build's, /usr/local/cuda:
/// lib64 and extras/CUPTI/lib64). Then the system loader ("libcupti.so.13"). Never throws.
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
