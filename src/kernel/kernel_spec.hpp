// What the user asked for about one kernel: the options `check`, `profile`, `run` and the hidden
// `__runner` share. Everything needed to rebuild the same kernel instance in another process
// (the one ncu profiles) is here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/dims.hpp"
#include "core/implementation.hpp"
#include "device/gpu_index.hpp"

namespace kprof {

/// Default of --seed: the random inputs' seed (trial t uses seed + t).
inline constexpr uint64_t kDefaultSeed = 42;
/// Default of --timeout of check / profile / run, seconds one kernel call may take.
inline constexpr double kDefaultCallTimeoutS = 60.0;

/// One kernel and the problem it runs on.
struct KernelSpec {
  std::string kernel;                       ///< .cu or .py path
  std::string implementation;               ///< --implementation/--backend as given ("" = by extension)
  std::string so_path;                      ///< --so ("" = the .cu's sibling .so)
  std::vector<std::string> sizes;           ///< --size NAME=EXPR, in order
  int64_t ptr_size = 0;                     ///< --ptr-size (0 = the seed's rule)
  uint64_t seed = kDefaultSeed;             ///< --seed
  int gpu = kDefaultGpu;                    ///< --gpu
  double timeout_s = kDefaultCallTimeoutS;  ///< --timeout: per kernel call, seconds
  bool build = false;  ///< --build: build the .so first unless it is up to date (kernel/build.hpp build_kernel)
  std::string arch;    ///< --arch for --build ("" = the GPU's)
  std::vector<std::string>
      nvcc_flags;  ///< nvcc flags after `--`: used by --build, and to read solve() as they compile it
  Dims dims;       ///< --NAME=VALUE
  /// Per dimension name that looks like a kprof option (filled by the CLI, cli/kernel_options.hpp):
  /// what the user probably meant ("did you mean --iters?"). Not passed to the runner.
  std::map<std::string, std::string> dim_notes;
  /// The kprof command it was given to ("check"; filled by the CLI), named by hints ("run `kprof
  /// check --help`"); "" names none. Not passed to the runner.
  std::string command;
};

/// "`kprof check --help`" for `spec.command`, "the command's --help" when it is "".
std::string command_help(const KernelSpec& spec);

/// The --implementation this spec resolves to (core/implementation.hpp rules).
/// Throws Error (exit 2) on a mismatch between file type and implementation.
Implementation spec_implementation(const KernelSpec& spec);

/// The command-line words that recreate `spec` for `kprof __runner` (options and dimensions, not
/// the program name or the command).
std::vector<std::string> spec_to_args(const KernelSpec& spec);

}  // namespace kprof
