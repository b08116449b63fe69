#include "cli/kernel_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

void add_kernel_options(CLI::App* sub, KernelCliOptions& o, bool several, bool with_ref, bool with_output) {
  if (several)
    sub->add_option("kernels", o.kernels,
                    "Kernel files: .cu (cuda-cpp, cutlass) or .py (triton, cute-dsl); "
                    "several versions of one kernel are compared")
        ->required()
        ->check(CLI::ExistingFile);
  else
    sub->add_option("kernel", o.kernels, "Kernel file: .cu (cuda-cpp, cutlass) or .py (triton, cute-dsl)")
        ->required()
        ->expected(1)
        ->check(CLI::ExistingFile);
  auto* impl = sub->add_option("--implementation", o.spec.implementation,
                               "cuda-cpp | cutlass | triton | cute-dsl (default: triton for .py, cuda-cpp otherwise)");
  sub->add_option("--backend", o.spec.implementation, "Alias of --implementation (seed compatibility)")->excludes(impl);
  sub->add_option("--so", o.so_paths,
                  several ? "Shared library of each version, one --so per kernel file in their order (default: each "
                            ".cu's sibling .so, same base name)"
                          : "Shared library to load (default: the .cu's sibling .so, same base name)")
      ->allow_extra_args(false);
  sub->add_option(kNvccFlagOption, o.spec.nvcc_flags, "nvcc flag (written after `--`: kprof check K.cu ... -- -DX=1)")
      ->allow_extra_args(false)
      ->group("");
  sub->add_flag("--build", o.spec.build,
                "Build the .so first (kprof build) unless an identical build exists (same source, included headers, "
                "flags, nvcc)");
  sub->add_option("--arch", o.spec.arch, "GPU architecture for --build, e.g. sm_90a (default: the GPU's own)");
  sub->add_option("--size", o.spec.sizes,
                  "Element count of one buffer as NAME=EXPR over dimensions, e.g. --size A=M*K (repeat the flag "
                  "for each buffer)")
      ->allow_extra_args(false);
  sub->add_option("--ptr-size", o.spec.ptr_size,
                  "Element count for every buffer (overrides the seed's rule: one int dimension -> its value; "
                  "several -> product of the two largest; none -> 1 Mi)")
      ->check(positive_number());
  sub->add_option("--seed", o.spec.seed, "Seed of the random inputs (trial t uses seed + t)")
      ->capture_default_str()
      ->check([](const std::string& s) {
        return s.empty() || s[0] == '-' ? std::string("the seed is a non-negative integer") : std::string();
      });
  sub->add_option("--gpu", o.spec.gpu, "GPU index (CUDA order)")->capture_default_str()->check(non_negative_number());
  sub->add_option("--timeout", o.spec.timeout_s,
                  "Seconds one kernel call may take before kprof reports it as hung (a check or timing call; "
                  "under ncu, once per replay pass; ncu's whole run is bounded by --ncu-timeout)")
      ->capture_default_str()
      ->check(positive_number());
  if (with_ref) {
    sub->add_option("--ref", o.ref, "Python reference: a file defining reference(**kwargs)")
        ->required()
        ->check(CLI::ExistingFile);
    sub->add_option("--atol", o.atol,
                    "Absolute tolerance (default: ref.py's atol, else 1e-4 for float32; "
                    "looser for float16/bfloat16, see README)")
        ->check(non_negative_number());
    sub->add_option("--rtol", o.rtol, "Relative tolerance (default: ref.py's rtol, else 1e-3 for float32)")
        ->check(non_negative_number());
    sub->add_option("--trials", o.trials,
                    "Check on this many fresh random inputs (seed, seed+1, ...; default 2); any failure fails")
        ->capture_default_str()
        ->check(positive_number());
  }
  if (with_output) sub->add_option("--output-dir,-o", o.output_dir, "Folder for the reports")->capture_default_str();
  sub->allow_extras();
  std::string before = sub->get_footer();
  sub->footer(
      (before.empty() ? std::string() : before + "\n\n") +
      "Dimensions: every --NAME=VALUE that is not an option above is a dimension passed to the kernel, "
      "e.g. --N=1024 --D=512 (integers), --alpha=0.5 (float scalars).\nnvcc flags after `--` (-- -DUSE_DOUBLE "
      "-Iinc) are used by --build and to read solve() as they compile it.\nExit codes: 0 success, 1 the checked "
      "thing failed, 2 usage or input error.");
}

void add_profile_options(CLI::App* sub, ProfileCliOptions& o) {
  auto* w = sub->add_option("--warmup", o.warmup, "Warm-up calls before timing (default: by time, --warmup-ms)")
                ->check(non_negative_number());
  sub->add_option("--warmup-ms", o.warmup_ms,
                  "Warm up for at least this many milliseconds (at least 3 calls; absorbs Triton compilation "
                  "and autotuning)")
      ->capture_default_str()
      ->excludes(w)
      ->check(non_negative_number());
  sub->add_option("--iters", o.iters,
                  "Timed calls in each of the two timing passes. Not given: until the relative standard error of "
                  "the median reaches --noise-target (at least 20 calls, within --time-budget-ms). Given: N, or as "
                  "many as fit in 3 s once min(N, 20) ran")
      ->check(positive_number())
      ->each([&o](const std::string&) { o.iters_given = true; });
  sub->add_option("--noise-target", o.noise_target_pct,
                  "Stop timing once the relative standard error of the median call time is at most this many "
                  "percent (nvbench's max noise; ignored with --iters)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 50.0));
  sub->add_option("--time-budget-ms", o.time_budget_ms,
                  fmt::format("Time limit of the first timing pass in ms, once at least min(--iters, 20) calls ran; "
                              "the second makes as many calls (default {:g} ms; {:g} ms with an explicit --iters)",
                              kDefaultBudgetMs, kExplicitItersBudgetMs))
      ->check(positive_number());
  sub->add_option("--throttle-threshold", o.throttle_threshold_pct,
                  "Discard timed calls whose SM clock (NVML) fell below this percentage of the GPU's maximum SM "
                  "clock, as nvbench does (0 keeps every call)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 99.0));
  sub->add_flag("--discard-throttled", o.discard_throttled,
                "Also discard timed calls during which NVML reported a power or thermal throttle (SW power cap, "
                "HW slowdown, thermal slowdown); by default they are counted and reported");
  sub->add_option("--input-sets", o.input_sets,
                  "Rotate the timed calls over this many seeded input sets (1: the same inputs every call); "
                  "identical inputs are also timed and compared, to catch a kernel that memoizes its output")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  sub->add_flag("--no-l2-flush", o.no_l2_flush,
                "Do not flush the L2 cache between timed calls (measures warm-cache time)");
  sub->add_option("--metrics", o.metrics,
                  "ncu metric set: kprof (the metrics the classification uses, fewest replay passes), sections "
                  "(+ ncu's 8 main sections for browsing in Nsight Compute), full (+ --set full)")
      ->capture_default_str()
      ->check(CLI::IsMember({"kprof", "sections", "full"}));
  sub->add_option("--ncu-timeout", o.ncu_timeout_s,
                  "Seconds the whole ncu run (all replay passes, plus the runner's start) may take before it is "
                  "stopped")
      ->capture_default_str()
      ->check(positive_number());
  sub->add_flag("--no-ncu", o.no_ncu, "Skip Nsight Compute: timing only (no classification)");
  // Two flags rather than CLI11's "--source,!--no-source", whose help reads "--no-source{false}".
  auto* on = sub->add_flag_callback(
      "--source", [&o] { o.source = true; },
      std::string("Collect the source-level data (ncu per-instruction counters: kprof's KprofSourceCounters section, "
                  "ncu's SourceCounters with --metrics sections|full; --import-source "
                  "yes) and report the hot "
                  "lines: source lines by share of warp samples with their stalls and memory waste (default: ") +
          (kCollectSourceByDefault ? "on" : "off") + ")");
  sub->add_flag_callback(
         "--no-source", [&o] { o.source = false; }, "Do not collect the source-level data (no hot lines)")
      ->excludes(on);
  sub->add_flag("--stock-source-section", o.stock_source_section,
                "Collect ncu's stock SourceCounters section instead of kprof's (A/B measurements)")
      ->group("");  // hidden from --help
  sub->add_flag("--sass", o.sass, "List the SASS instructions behind each hot line in ncu_summary.md");
  sub->add_option("--top", o.top, "Hot lines per kernel")->capture_default_str()->check(CLI::Range(1, 1000));
  sub->add_flag("--no-roofline", o.no_roofline, "Do not draw roofline.svg/.png (matplotlib in kprof's Python)");
  sub->add_flag("--no-html", o.no_html, "Do not write report.html (the self-contained page beside the JSON)");
  sub->add_flag("--html-no-source", o.html_no_source, "Leave source lines and SASS out of report.html");
}

namespace {

/// The long option names of `app` ("--iters"), without help/version flags.
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options())
    for (const auto& n : opt->get_lnames())
      if (n != "help" && n != "version") out.push_back("--" + n);
  return out;
}

}  // namespace

std::string option_note(const CLI::App& sub, const std::string& name) {
  std::string n = to_lower(name);
  for (char& c : n)
    if (c == '_') c = '-';
  if (n.rfind("--", 0) != 0) n = "--" + n;
  const auto own = long_options(sub);
  if (n != name && std::find(own.begin(), own.end(), n) != own.end()) return "did you mean " + n + "?";
  const CLI::App* root = sub.get_parent();
  std::vector<std::string> owners;
  if (root)
    for (const CLI::App* other : root->get_subcommands({}))
      if (other != &sub && !other->get_group().empty()) {
        auto theirs = long_options(*other);
        if (std::find(theirs.begin(), theirs.end(), n) != theirs.end())
          owners.push_back("`kprof " + other->get_name() + "`");
      }
  if (!owners.empty())
    return fmt::format("{} is an option of {}, not of `kprof {}`", n, fmt::join(owners, " and "), sub.get_name());
  if (n.size() < 6) return "";  // "--" + 4 letters
  auto nearest = [&n](const std::vector<std::string>& options) {
    std::string best, prefixed;
    size_t best_d = 3, prefixes = 0;  // up to 2 edits; else the one option `n` is the start of
    for (const auto& o : options) {
      size_t d = edit_distance(n, o);
      if (d < best_d) best_d = d, best = o;
      if (o.size() > n.size() && o.compare(0, n.size(), n) == 0 && o[n.size()] == '-') ++prefixes, prefixed = o;
    }
    return !best.empty() ? best : prefixes == 1 ? prefixed : std::string();
  };
  if (auto best = nearest(own); !best.empty()) return "did you mean " + best + "?";
  if (root)
    for (const CLI::App* other : root->get_subcommands({}))
      if (other != &sub && !other->get_group().empty())
        if (auto best = nearest(long_options(*other)); !best.empty())
          return fmt::format("did you mean {}? (an option of `kprof {}`, not of `kprof {}`)", best, other->get_name(),
                             sub.get_name());
  return "";
}

std::string misplaced_option(const CLI::App& sub, const std::string& word, const std::string& value, bool attached,
                             std::string& hint) {
  const std::string name = word.substr(0, word.find('='));
  if (name.rfind("--", 0) != 0 || name.size() < 3 || name == "--help" || name == "--version") return "";
  if (sub.get_option_no_throw(name) != nullptr) return "";
  const bool kernel_command = sub.get_allow_extras();
  const bool numeric = parse_number(value).has_value() && value.find(',') == std::string::npos;
  const std::string note = option_note(sub, name);
  bool flag = false;  // another command's option that takes no value: `value` is not its
  if (const CLI::App* root = sub.get_parent())
    for (const CLI::App* other : root->get_subcommands({}))
      if (const CLI::Option* opt = other->get_option_no_throw(name)) flag = opt->get_type_size() == 0;
  // The next word is shown only when it can be this option's value (not another option: `--bulid -o`).
  const bool shows_value = !value.empty() && !flag && value.rfind("-", 0) != 0;
  const std::string shown = attached ? "'" + word + "'" : "'" + name + (shows_value ? " " + value : "") + "'";
  hint = "run `kprof " + sub.get_name() + " --help` for its options";
  if (note.empty()) {
    if (kernel_command && !attached && numeric) {
      hint = "write " + name + "=" + value;
      return shown + ": a dimension is given with '=', not a space";
    }
    return "";
  }
  // `--iters=5` may be a parameter of solve() or setup(): the kernel decides (validate_spec).
  if (kernel_command && attached && numeric) return "";
  // An attached value that is not a number cannot be a dimension either (dimensions are numbers).
  if (kernel_command)
    hint = attached
               ? "if " + name + " is a parameter of solve() or setup(), its value is a number (" + name + "=8); " + hint
               : "if " + name + " is a parameter of solve() or setup(), give it as " + name + "=VALUE; " + hint;
  return shown + ": " + note;
}

void finish_kernel_options(CLI::App* sub, KernelCliOptions& o) {
  for (const auto& w : sub->remaining()) {
    std::string name = w.substr(0, w.find('='));
    // A word with '-' in its name cannot be a dimension: a misspelt option ("--ncu-timout=5").
    if (name.rfind("--", 0) == 0 && name.find('-', 2) != std::string::npos)
      if (auto note = option_note(*sub, name); !note.empty())
        throw usage_error("'" + w + "' is not an option of `kprof " + sub->get_name() + "`: " + note,
                          "run `kprof " + sub->get_name() + " --help` for its options");
    // `--metrics=full`: another command's option, and not a number, so not a dimension either.
    std::string hint;
    bool attached = w.find('=') != std::string::npos;
    if (auto why = misplaced_option(*sub, w, attached ? w.substr(w.find('=') + 1) : "", attached, hint); !why.empty())
      throw usage_error(why, hint);
  }
  const bool several = sub->get_name() == "run";
  if (!o.so_paths.empty() && o.so_paths.size() != (several ? o.kernels.size() : 1))
    throw usage_error(several
                          ? fmt::format("--so is given {} time(s) for {} versions", o.so_paths.size(), o.kernels.size())
                          : "--so is given " + std::to_string(o.so_paths.size()) + " times",
                      several ? "give one --so per version, in the order of the kernel files, or none (each .cu then "
                                "loads its sibling .so, same base name; --build builds them)"
                              : "give the kernel's library once: --so K.so");
  if (!o.output_dir.empty() && sub->get_option_no_throw("--output-dir"))
    if (auto why = output_dir_problem(o.output_dir); !why.empty())
      throw usage_error("-o " + o.output_dir + ": " + why,
                        "give a folder for the reports (created when missing), "
                        "e.g. -o profile_out");
  parse_dim_args(sub->remaining(), o.spec.dims);
  for (const auto& d : o.spec.dims.all())
    if (auto note = option_note(*sub, "--" + d.name); !note.empty()) o.spec.dim_notes[d.name] = note;
  if (o.trials < 1) throw usage_error("--trials must be at least 1");
}

KernelSpec spec_for(const KernelCliOptions& o, size_t index) {
  KernelSpec s = o.spec;
  s.kernel = o.kernels.at(index);
  if (!o.so_paths.empty()) s.so_path = o.so_paths.at(index);
  return s;
}

std::vector<std::string> rewrite_nvcc_flags(const std::vector<std::string>& argv) {
  const bool kernel_command =
      argv.size() > 1 && (argv[1] == "check" || argv[1] == "profile" || argv[1] == "run" || argv[1] == "__runner");
  std::vector<std::string> out;
  bool after = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (after)
      out.push_back(std::string(kNvccFlagOption) + "=" + argv[i]);
    else if (kernel_command && i >= 2 && argv[i] == "--")
      after = true;
    else
      out.push_back(argv[i]);
  }
  return out;
}

}  // namespace kprof
