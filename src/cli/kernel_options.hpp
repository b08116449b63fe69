// The options shared by check, profile, run and __runner, registered once so every command
// documents them the same way in --help.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/requests.hpp"
#include "flows/profile.hpp"
#include "kernel/kernel_spec.hpp"

namespace kprof {

/// Parsed common options (api/requests.hpp); `kernels` holds one path (check/profile) or several (run).
using KernelCliOptions = api::KernelRequest;

/// Options of the timing and ncu steps (profile, run).
using ProfileCliOptions = api::ProfileRequest;

/// Adds the kernel positional(s) and the shared options. `several` allows several kernels (run);
/// `with_ref` adds --ref/--atol/--rtol/--trials; `with_output` adds --output-dir.
/// Dimensions (--NAME=VALUE) are collected by finish_kernel_options from the leftovers. nvcc flags
/// given after `--` arrive as the hidden repeated option --nvcc-flag=FLAG (main() rewrites them:
/// rewrite_nvcc_flags).
void add_kernel_options(CLI::App* sub, KernelCliOptions& o, bool several, bool with_ref, bool with_output);

/// The edits between `a` and `b` that a typo makes: insertions, deletions, substitutions and
/// swaps of two neighbouring letters, each 1 ("--tpo" is 1 from "--top", 2 from "--so").
size_t typo_distance(const std::string& a, const std::string& b);

/// The name of `names` that `word` is a typo of (the nearest within `max_edits` typo_distance), else
/// the one name that `continues` accepts as `word` written on (its start), else "".
std::string nearest_name(const std::string& word, const std::vector<std::string>& names, size_t max_edits,
                         const std::function<bool(const std::string& name)>& continues);

/// When `--NAME` (given to command `sub` as a dimension or with a space) looks like a kprof option,
/// what the user probably meant: "did you mean --ncu-timeout?" (this command's option, spelt with
/// '_' or off by up to 2 letters, 1 for a name of 1-2 letters), or "--iters is an option of `kprof
/// profile` and `kprof run`, not of `kprof check`". "" otherwise. For a kernel command (which takes
/// dimensions) names of 4+ letters only, so --N or --K never match, unless `short_names`.
std::string option_note(const CLI::App& sub, const std::string& name, bool short_names = false);

/// Adds the timing / ncu options.
void add_profile_options(CLI::App* sub, ProfileCliOptions& o);

/// Turns the leftover words of `sub` into dimensions (Error exit 2 for anything that is not
/// --NAME=VALUE, and for an option of another command whose value is not a number, so it cannot be
/// a dimension) and validates: trials >= 1; --so at most once, or for run none or one per
/// version; the output folder usable (core/fs.hpp output_dir_problem), all before any GPU work.
void finish_kernel_options(CLI::App* sub, KernelCliOptions& o);

/// The spec for kernel number `index` of `o.kernels` (the shared spec with `kernel` and its
/// --so set).
KernelSpec spec_for(const KernelCliOptions& o, size_t index);

/// The hidden option carrying one nvcc flag of check / profile / run / __runner ("--nvcc-flag").
inline constexpr const char* kNvccFlagOption = "--nvcc-flag";

/// argv with every word after the first standalone `--` (that follows command `command`)
/// rewritten as `--nvcc-flag=WORD`, for check, profile, run and __runner; other commands'
/// argv is returned unchanged (kprof build takes `--` itself).
std::vector<std::string> rewrite_nvcc_flags(const std::vector<std::string>& argv);

/// The error for `--NAME` given to command `sub` when NAME is an option of another command or a
/// misspelt option (option_note), or when `--NAME VALUE` with a number should have been
/// `--NAME=VALUE`; "" when there is nothing to say. `value` is the next word ("" when none or
/// another option); `attached` is true for `--NAME=VALUE`. A numeric `--NAME=VALUE` given to a
/// kernel command stays a dimension (validate_spec decides: it is one when solve() or setup()
/// takes NAME). Sets `hint`.
std::string misplaced_option(const CLI::App& sub, const std::string& word, const std::string& value, bool attached,
                             std::string& hint);

}  // namespace kprof
