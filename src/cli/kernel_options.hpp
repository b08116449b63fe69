// The options shared by check, profile, run and __runner, registered once so every command
// documents them the same way in --help.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "pipeline/kernel_spec.hpp"
#include "pipeline/profile.hpp"

namespace kprof {

/// Parsed common options; `kernels` holds one path (check/profile) or several (run).
struct KernelCliOptions {
  std::vector<std::string> kernels;
  KernelSpec spec;                    ///< everything but `kernel` (filled per kernel)
  std::string ref;                    ///< --ref ref.py
  double atol = -1, rtol = -1;        ///< --atol / --rtol; < 0 = not given
  int trials = 1;                     ///< --trials
  std::string output_dir = "profile_out";
};

/// Options of the timing and ncu steps (profile, run).
struct ProfileCliOptions {
  int warmup = -1;                    ///< --warmup N calls (-1: by time)
  double warmup_ms = 100;             ///< --warmup-ms
  int iters = 100;                    ///< --iters
  bool no_l2_flush = false;           ///< --no-l2-flush
  std::string metrics = "kprof";      ///< --metrics kprof|sections|full
  double ncu_timeout_s = 900;         ///< --ncu-timeout
  bool no_ncu = false;                ///< --no-ncu: timing only
  bool source = kCollectSourceByDefault;  ///< --source / --no-source: hot lines (ncu SourceCounters)
  bool sass = false;                  ///< --sass: SASS of each hot line in ncu_summary.md
  size_t top = 10;                    ///< --top: hot lines per kernel
  bool no_roofline = false;           ///< --no-roofline: skip roofline.svg/.png (no Python start for the chart)
};

/// Adds the kernel positional(s) and the shared options. `several` allows several kernels (run);
/// `with_ref` adds --ref/--atol/--rtol/--trials; `with_output` adds --output-dir.
/// Dimensions (--NAME=VALUE) are collected by finish_kernel_options from the leftovers.
void add_kernel_options(CLI::App* sub, KernelCliOptions& o, bool several, bool with_ref, bool with_output);

/// When `--NAME` (given to command `sub` as a dimension or with a space) looks like a kprof option,
/// what the user probably meant: "did you mean --ncu-timeout?" (this command's option, spelt with
/// '_' or off by up to 2 letters; names of 4+ letters only, so --N or --K never match), or
/// "--iters is an option of `kprof profile` and `kprof run`, not of `kprof check`". "" otherwise.
std::string option_note(const CLI::App& sub, const std::string& name);

/// Adds the timing / ncu options.
void add_profile_options(CLI::App* sub, ProfileCliOptions& o);

/// Turns the leftover words of `sub` into dimensions (Error exit 2 for anything that is not
/// --NAME=VALUE) and validates ranges (trials >= 1, timeout > 0...).
void finish_kernel_options(CLI::App* sub, KernelCliOptions& o);

/// The spec for kernel `path` (the shared spec with `kernel` set).
KernelSpec spec_for(const KernelCliOptions& o, const std::string& path);

}  // namespace kprof
