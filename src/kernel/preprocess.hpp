// nvcc's host-side preprocessing of a kernel source: the text the host compiler builds the .so
// from, so solve() is read with the preprocessor conditionals and macros evaluated exactly as nvcc
// evaluates them (`__CUDACC__` defined, `__CUDA_ARCH__` not, the build's -D/-U/-I flags).
//
// `nvcc -E` alone is not it: it preprocesses for the DEVICE pass (`__CUDA_ARCH__` defined). kprof
// asks nvcc for its plan (`--dryrun`) and runs the host `-E` step of that plan.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// Splits one command line as printed by `nvcc --dryrun` (after its "#$ " prefix) into words:
/// blanks separate, "..." and '...' quote, backslash escapes inside "..." and outside quotes.
std::vector<std::string> split_shell_words(const std::string& line);

/// From the output of `nvcc --dryrun <build line>`: the host preprocessing step (the `-E` command
/// without `-D__CUDA_ARCH__`), its `-o FILE` removed so it writes to stdout. Empty when absent.
std::vector<std::string> host_preprocess_step(const std::string& dryrun_output);

/// Result of preprocess_host.
struct HostPreprocess {
  bool ok = false;
  std::string text;     ///< preprocessed source with line markers, system headers' lines dropped
  std::string problem;  ///< why there is no text (nvcc failed, the plan had no host -E step, ...)
  bool cached = false;  ///< read from the cache (preprocess_cache_dir)
  double wall_s = 0;    ///< seconds spent (nvcc --dryrun + preprocessor, or the cache lookup)
};

/// The files a preprocessed text (preprocess_host's `text`) was read from, in first-seen order:
/// the names of its line markers that are not system headers (marker flag 3) nor `<built-in>`.
std::vector<std::string> preprocessed_user_files(const std::string& text);

/// The folder of preprocessed sources: $KPROF_CACHE_DIR, else $XDG_CACHE_HOME/kprof, else
/// ~/.cache/kprof; then "/preprocessed". "" when none can be named (no HOME).
std::string preprocess_cache_dir();

/// Preprocesses `source` for the host as `build_argv` (a whole nvcc line: nvcc, flags, -o K.so,
/// K.cu) would: `nvcc --dryrun`, then its host `-E` step (each limited to `timeout_s`). Cached
/// by a hash of the flags, the source text and nvcc's identity; an entry is used only while every
/// non-system file it included keeps its size and mtime. The newest 64 entries are kept, 64 MiB
/// in all (an entry is the text of every non-system file: 0.6 MB for a plain kernel with
/// cuda_runtime.h, 5 MB for a CUTLASS GEMM). Never throws: failures come back in `problem`.
HostPreprocess preprocess_host(const std::vector<std::string>& build_argv, const std::string& source,
                               double timeout_s = 120.0);

}  // namespace kprof
