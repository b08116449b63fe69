// `kprof build`: compiles a cuda-cpp / cutlass kernel (.cu exposing extern "C" void solve(...))
// into the shared library that check / profile / run load.
#pragma once

#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "core/subprocess.hpp"
#include "device/gpu_index.hpp"
#include "kernel/cutlass.hpp"

namespace kprof {

/// What to build.
/// Default of `kprof build --timeout`, seconds nvcc may take (CUTLASS can take minutes).
inline constexpr double kDefaultNvccTimeoutS = 600;

struct BuildOptions {
  std::string source;                             ///< KERNEL.cu
  Implementation impl = Implementation::CudaCpp;  ///< CudaCpp or Cutlass (others: exit 2)
  std::string arch;                               ///< "sm_90", "sm_90a"; "" = the GPU's own (see resolve_arch)
  int gpu = kDefaultGpu;                          ///< CUDA device whose architecture is used when arch == ""
  std::string output;                             ///< "" = KERNEL.so next to KERNEL.cu
  std::vector<std::string> extra_flags;           ///< appended to the nvcc line (after `--`)
  double timeout_s = kDefaultNvccTimeoutS;        ///< nvcc time limit, seconds (CUTLASS can take minutes)
  bool echo = true;                               ///< print the nvcc line (stderr) before running it
  const std::atomic<bool>* cancel = nullptr;      ///< when it turns true, nvcc is stopped (Error, exit 1)
};

/// What was built.
struct BuildResult {
  std::string output;                ///< the .so written
  std::string arch;                  ///< the architecture compiled for ("sm_90a")
  std::vector<std::string> command;  ///< the nvcc argv that ran
  std::string log;                   ///< nvcc's messages (warnings), "" when silent
  double wall_s = 0;                 ///< compile time, seconds
  /// How it was obtained: "compiled", "up to date" (the .so on disk was built by kprof from the same
  /// inputs: nothing ran) or "cache" (copied from the build cache, kernel/build_cache.hpp).
  std::string how = "compiled";
};

/// How `r` was obtained, for progress lines and reports: "compiled (2.1 s)", "up to date" or
/// "from cache".
std::string build_how_text(const BuildResult& r);

/// True when `source` uses instructions that exist only on sm_90a (Hopper's arch-specific
/// features): wgmma / GMMA, setmaxnreg, TMA (cp.async.bulk.tensor, SM90_TMA_*).
bool uses_hopper_only_features(const std::string& source);

/// True when `source` uses sm_100a-only instructions (tcgen05, UMMA).
bool uses_blackwell_only_features(const std::string& source);

/// True when `arch` is a valid nvcc real architecture: sm_<digits> optionally followed by 'a' or 'f'.
bool valid_arch(const std::string& arch);

/// The architecture to compile for: `requested` when given (checked with valid_arch: exit 2);
/// else `gpu_arch` ("sm_90") upgraded to its arch-specific variant ("sm_90a") when the source
/// needs it, or always for cutlass on sm_90. Throws Error (exit 2) asking for --arch when both
/// are empty (no GPU to take it from; `gpu_error` says why).
std::string resolve_arch(const std::string& requested, const std::string& gpu_arch, Implementation impl,
                         const std::string& source_text, const std::string& gpu_error = "");

/// "KERNEL.so" next to "KERNEL.cu" (`output` itself when given).
std::string default_output(const std::string& source, const std::string& output = "");

/// The nvcc argv: -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=<arch>, for cutlass
/// also -I <include> -I <tools/util/include> --expt-relaxed-constexpr --expt-extended-lambda
/// -DNDEBUG; then `extra`, -o `output` and the source.
std::vector<std::string> nvcc_command(const std::string& nvcc, const std::string& source, const std::string& output,
                                      const std::string& arch, Implementation impl, const CutlassInstall* cutlass,
                                      const std::vector<std::string>& extra);

/// True when `so` is missing or older than `cu` (modification times): check / profile / run
/// --build rebuild then.
bool needs_rebuild(const std::string& cu, const std::string& so);

/// Builds `opts.source`; the .so is written atomically (nvcc writes a temporary, then rename),
/// and its build record next to it (kernel/build_record.hpp: the nvcc line, for reading solve()).
/// Nothing is compiled when the inputs are unchanged (build_key: nvcc line, nvcc, the text of the
/// source and its non-system includes): the .so on disk is kept when its record has the same key,
/// else a cached copy of that build is used; a compiled .so is added to the cache.
/// Throws Error: exit 2 for a missing source, a .py source, a bad --arch, no --arch without a GPU,
/// missing CUTLASS headers (naming CUTLASS_PATH / CUTLASS_ROOT / CUTLASS_HOME); exit 1 when nvcc
/// is missing, fails (the message carries nvcc's own messages) or exceeds `timeout_s`.
BuildResult build_kernel(const BuildOptions& opts);

}  // namespace kprof
