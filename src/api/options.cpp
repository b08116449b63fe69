#include "api/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "api/defaults.hpp"
#include "core/implementation.hpp"
#include "device/gpu_index.hpp"
#include "kernel/build.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/env/env_check.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/ncu/session.hpp"
#include "stages/timing/decision.hpp"
#include "stages/timing/noise.hpp"
#include "stages/timing/rounds.hpp"
#include "stages/timing/timing.hpp"
#include "stages/verify/check.hpp"

namespace kprof::api {
namespace {

using T = OptionType;
const std::vector<std::string> kKernel = {"check", "profile", "run", "__runner"};
const std::vector<std::string> kTimed = {"profile", "run"};
const std::vector<std::string> kRef = {"check", "run"};
const std::vector<std::string> kOut = {"check", "profile", "run"};
const std::vector<std::string> kRun = {"run"};

/// A number as the command line writes it: 100, 0.5, 900.
std::string num(double v) { return fmt::format("{:g}", v); }

/// The languages' names, from their catalog rows (core/implementation.hpp language_rows()); with
/// `kind`, only the rows of that file kind (`kprof build` compiles the CUDA sources).
std::vector<std::string> implementation_names(std::optional<FileKind> kind = std::nullopt) {
  std::vector<std::string> out;
  for (const LanguageRow& row : language_rows())
    if (!kind || row.file == *kind) out.push_back(row.name);
  return out;
}

/// Builder: OptionRow fields by name, so each row of the table reads as one statement.
struct R {
  OptionRow r;
  R(std::string flag, std::vector<std::string> commands, T type, std::string field, std::string help) {
    r.flag = std::move(flag);
    r.commands = std::move(commands);
    r.type = type;
    r.field = std::move(field);
    r.help = std::move(help);
  }
  R& shrt(std::string s) {
    r.short_name = std::move(s);
    return *this;
  }
  R& unit(std::string u) {
    r.unit = std::move(u);
    return *this;
  }
  R& choices(std::vector<std::string> c) {
    r.choices = std::move(c);
    return *this;
  }
  R& positive() {
    r.min = 0;
    r.min_exclusive = true;
    return *this;
  }
  R& range(double lo, double hi) {
    r.min = lo;
    r.max = hi;
    return *this;
  }
  R& at_least(double lo) {
    r.min = lo;
    return *this;
  }
  R& def(std::string v) {
    r.default_value = std::move(v);
    return *this;
  }
  R& def(double v) {
    r.default_value = num(v);
    return *this;
  }
  R& rule(std::string w) {
    r.default_rule = std::move(w);
    return *this;
  }
  R& alias_of(std::string a) {
    r.alias_of = std::move(a);
    return *this;
  }
  R& needs(std::string n) {
    r.needs = std::move(n);
    return *this;
  }
  R& excludes(std::vector<std::string> e) {
    r.excludes = std::move(e);
    return *this;
  }
  R& hidden() {
    r.hidden = true;
    return *this;
  }
  R& own_choice_check() {
    r.cli_checks_choices = false;
    return *this;
  }
  R& internal() {
    r.python = false;
    return *this;
  }
  operator OptionRow() const { return r; }  // NOLINT: the table reads better without a call
};

std::vector<OptionRow> build_table() {
  const auto impls = implementation_names();
  std::string impl_list;
  for (const auto& n : impls) impl_list += (impl_list.empty() ? "" : " | ") + n;
  const std::string by_extension = implementation_name(default_implementation("k.py")) + " for .py, " +
                                   implementation_name(default_implementation("k.cu")) + " otherwise";
  std::vector<OptionRow> t = {
      // ---- env
      R("--output", {"env"}, T::Path, "output_file", "Markdown report path; env_check.json is written next to it")
          .shrt("-o")
          .def(kDefaultEnvReport),
      R("--gpu", {"env"}, T::Int, "gpu", "CUDA device index to check").range(0, 4095).def(kDefaultGpu),
      R("--json", {"env"}, T::Flag, "json", "Print the JSON report on stdout instead of the summary").internal(),
      R("--timeout", {"env"}, T::Number, "probe_timeout_s",
        "Time limit of each probe in seconds (tools, ncu, Python imports)")
          .unit("s")
          .positive()
          .def(kDefaultEnvProbeTimeoutS),
      // ---- clocks
      R("--gpu", {"clocks"}, T::Int, "gpu", "CUDA device index").range(0, 4095).def(kDefaultGpu),
      R("--lock", {"clocks"}, T::Flag, "lock",
        "Lock the SM clock at its base (TDP) clock (nvmlDeviceSetGpuLockedClocks with NVML_CLOCK_LIMIT_ID_TDP, "
        "nvbench's --lgc base)")
          .excludes({"--reset"}),
      R("--max", {"clocks"}, T::Flag, "max", "With --lock: lock at the maximum SM clock instead of the base clock")
          .needs("--lock"),
      R("--reset", {"clocks"}, T::Flag, "reset", "Restore the default clocks (nvmlDeviceResetGpuLockedClocks)"),
      R("--dry-run", {"clocks"}, T::Flag, "dry_run", "Print what would be done; change nothing"),
      // ---- build
      R("--implementation", {"build"}, T::Text, "implementation", "cuda-cpp (default) or cutlass")
          .choices(implementation_names(FileKind::CudaSource))
          .own_choice_check()
          .rule("cuda-cpp"),
      R("--backend", {"build"}, T::Text, "implementation",
        "Alias of --implementation (the name the original kernel-profile scripts use)")
          .choices(implementation_names(FileKind::CudaSource))
          .own_choice_check()
          .alias_of("--implementation")
          .excludes({"--implementation"}),
      R("--arch", {"build"}, T::Text, "arch", "nvcc architecture (sm_90, sm_90a, ...); default: the GPU's own")
          .rule("the GPU's own"),
      R("--output", {"build"}, T::Path, "output_so", "Output .so (default: KERNEL.so next to KERNEL.cu)")
          .shrt("-o")
          .rule("KERNEL.so next to KERNEL.cu"),
      R("--gpu", {"build"}, T::Int, "gpu", "CUDA device whose architecture is used").range(0, 4095).def(kDefaultGpu),
      R("--timeout", {"build"}, T::Number, "nvcc_timeout_s", "nvcc time limit in seconds")
          .unit("s")
          .positive()
          .def(kDefaultNvccTimeoutS),
      // ---- the kernel commands (check, profile, run and the hidden __runner ncu profiles)
      R("--implementation", kKernel, T::Text, "implementation", impl_list + " (default: " + by_extension + ")")
          .choices(impls)
          .own_choice_check()
          .rule(by_extension),
      R("--backend", kKernel, T::Text, "implementation",
        "Alias of --implementation (the name the original kernel-profile scripts use)")
          .choices(impls)
          .own_choice_check()
          .alias_of("--implementation")
          .excludes({"--implementation"}),
      R("--so", {"check", "profile", "__runner"}, T::Paths, "so_paths",
        "Shared library to load (default: the .cu's sibling .so, same base name)")
          .rule("the .cu's sibling .so"),
      R("--so", kRun, T::Paths, "so_paths",
        "Shared library of each version, one --so per kernel file in their order (default: each .cu's sibling "
        ".so, same base name)")
          .rule("each .cu's sibling .so"),
      R("--nvcc-flag", kKernel, T::Texts, "nvcc_flags", "nvcc flag (written after `--`: kprof check K.cu ... -- -DX=1)")
          .hidden()
          .internal(),
      R("--build", kKernel, T::Flag, "build",
        "Build the .so first (kprof build) unless an identical build exists (same source, included headers, "
        "flags, nvcc)"),
      R("--arch", kKernel, T::Text, "arch", "GPU architecture for --build, e.g. sm_90a (default: the GPU's own)")
          .rule("the GPU's own"),
      R("--size", kKernel, T::Texts, "sizes",
        "Element count of one buffer as NAME=EXPR over dimensions, e.g. --size A=M*K (repeat the flag for each "
        "buffer)"),
      R("--ptr-size", kKernel, T::Int, "ptr_size",
        "Element count for every buffer (overrides the original kernel-profile scripts' rule: one int dimension -> its "
        "value; several -> "
        "product of the two largest; none -> 1 Mi)")
          .positive()
          .rule("the original kernel-profile scripts' rule"),
      R("--seed", kKernel, T::Int, "seed", "Seed of the random inputs (trial t uses seed + t)")

          .def(num(static_cast<double>(kDefaultSeed))),
      R("--gpu", kKernel, T::Int, "gpu", "GPU index (CUDA order)").at_least(0).def(kDefaultGpu),
      R("--timeout", kKernel, T::Number, "call_timeout_s",
        "Seconds one kernel call may take before kprof reports it as hung (a check or timing call; under ncu, "
        "once per replay pass; ncu's whole run is bounded by --ncu-timeout)")
          .unit("s")
          .positive()
          .def(kDefaultCallTimeoutS),
      R("--ref", kRef, T::Path, "ref", "Python reference: a file defining reference(**kwargs)").internal(),
      R("--atol", kRef, T::Number, "atol",
        "Absolute tolerance (default: ref.py's atol, else 1e-4 for float32; looser for float16/bfloat16: "
        "docs/REFERENCE.md, Tolerances, in the kprof source)")
          .at_least(0)
          .rule("ref.py's atol, else by dtype (1e-4 for float32)"),
      R("--rtol", kRef, T::Number, "rtol", "Relative tolerance (default: ref.py's rtol, else 1e-3 for float32)")
          .at_least(0)
          .rule("ref.py's rtol, else by dtype (1e-3 for float32)"),
      R("--trials", kRef, T::Int, "trials",
        "Check on this many fresh random inputs (seed, seed+1, ...); any failure fails")
          .positive()
          .def(kDefaultTrials),
      R("--sanitize", {"check"}, T::Text, "sanitize",
        "After the check, run the kernel under NVIDIA compute-sanitizer once per tool: a comma-separated subset "
        "of memcheck, racecheck, initcheck, synccheck; findings go to correctness.md/.json and an error in the "
        "kernel fails the check (build with -lineinfo for file:line)"),
      R("--output-dir", kOut, T::Path, "output_dir", "Folder for the reports").shrt("-o").def(kDefaultOutputDir),
      // ---- timing and ncu (profile, run)
      R("--warmup", kTimed, T::Int, "warmup_calls", "Warm-up calls before timing (default: by time, --warmup-ms)")
          .unit("calls")
          .at_least(0)
          .rule("by time, --warmup-ms"),
      R("--warmup-ms", kTimed, T::Number, "warmup_ms",
        "Warm up for at least this many milliseconds (at least 3 calls; absorbs Triton compilation and "
        "autotuning)")
          .unit("ms")
          .at_least(0)
          .def(kDefaultWarmupMs)
          .excludes({"--warmup"}),
      R("--iters", kTimed, T::Int, "iters",
        "Timed calls in each of the two timing passes. Not given: until the relative standard error of the "
        "median reaches --noise-target (at least 20 calls, within --time-budget-ms). Given: N, or as many as fit "
        "in 3 s once min(N, 20) ran")
          .unit("calls")
          .positive()
          .rule("until --noise-target"),
      R("--noise-target", kTimed, T::Number, "noise_target_pct",
        "Stop timing once the relative standard error of the median call time is at most this many percent "
        "(nvbench's max noise; ignored with --iters)")
          .unit("%")
          .range(0.001, 50.0)
          .def(100 * kDefaultNoiseTarget),
      R("--time-budget-ms", kTimed, T::Number, "time_budget_ms",
        "Time limit of the first timing pass in ms, once at least min(--iters, 20) calls ran; the second makes as "
        "many calls")
          .unit("ms")
          .positive()
          .rule(fmt::format("{:g} ms; {:g} ms with an explicit --iters", kDefaultBudgetMs, kExplicitItersBudgetMs)),
      R("--throttle-threshold", kTimed, T::Number, "throttle_threshold_pct",
        "Discard timed calls whose SM clock (NVML) fell below this percentage of the GPU's maximum SM clock, as "
        "nvbench does (0 keeps every call)")
          .unit("%")
          .range(0.0, 99.0)
          .def(100 * kDefaultClockFloorFrac),
      R("--discard-throttled", kTimed, T::Flag, "discard_throttled",
        "Also discard timed calls during which NVML reported a power or thermal throttle (SW power cap, HW "
        "slowdown, thermal slowdown); by default they are counted and reported"),
      R("--input-sets", kTimed, T::Int, "input_sets",
        "Rotate the timed calls over this many seeded input sets (1: the same inputs every call); identical "
        "inputs are also timed and compared, to catch a kernel that memoizes its output")
          .range(1, 16)
          .def(kDefaultInputSets),
      R("--no-l2-flush", kTimed, T::Flag, "no_l2_flush",
        "Do not flush the L2 cache between timed calls (measures warm-cache time)"),
      R("--metrics", kTimed, T::Text, "metric_set",
        "ncu metric set: kprof (the metrics the classification uses, fewest replay passes), sections (+ ncu's 8 "
        "main sections for browsing in Nsight Compute), full (+ --set full)")
          .choices({"kprof", "sections", "full"})
          .def(kDefaultMetricSet),
      R("--ncu-timeout", kTimed, T::Number, "ncu_timeout_s",
        "Seconds the whole ncu run (all replay passes, plus the runner's start) may take before it is stopped")
          .unit("s")
          .positive()
          .def(kDefaultNcuTimeoutS),
      R("--no-ncu", kTimed, T::Flag, "no_ncu", "Skip Nsight Compute: timing only (no classification)"),
      R("--source", kTimed, T::Flag, "source",
        std::string("Collect the source-level data (ncu per-instruction counters: kprof's KprofSourceCounters "
                    "section, ncu's SourceCounters with --metrics sections|full; --import-source yes) and report "
                    "the hot lines: source lines by share of warp samples with their stalls and memory waste "
                    "(default: ") +
            (kCollectSourceByDefault ? "on" : "off") + ")"),
      R("--no-source", kTimed, T::Flag, "no_source", "Do not collect the source-level data (no hot lines)")
          .excludes({"--source"}),
      R("--stock-source-section", kTimed, T::Flag, "stock_source_section",
        "Collect ncu's stock SourceCounters section instead of kprof's (A/B measurements)")
          .hidden(),
      R("--sass", {"profile", "run", "analyze"}, T::Flag, "sass",
        "List the SASS instructions behind each hot line in ncu_summary.md"),
      R("--top", {"profile", "run", "analyze"}, T::Int, "top", "Hot lines per kernel")
          .range(1, 1000)
          .def(num(static_cast<double>(kDefaultHotLinesTop))),
      R("--no-roofline", {"profile", "run", "analyze"}, T::Flag, "no_roofline",
        "Do not draw roofline.svg/.png (matplotlib in kprof's Python)"),
      // ---- the page (issue 52, docs/REPORT_PAGE.md)
      R("--no-html", {"env", "check", "profile", "run", "analyze", "compare"}, T::Flag, "no_html",
        "Do not write the self-contained page (report.html beside the JSON; env: env_check.html)"),
      R("--html-no-source", {"profile", "run", "analyze"}, T::Flag, "html_no_source",
        "Leave source lines and SASS out of report.html (the JSON keeps them)"),
      // ---- run
      R("--env-timeout", kRun, T::Number, "env_probe_timeout_s", "Seconds each environment probe may take")
          .unit("s")
          .positive()
          .def(kDefaultEnvProbeTimeoutS),
      R("--ncu-session", kRun, T::Text, "one_ncu_session",
        "one: every correct version profiled in one Nsight Compute session (one ncu process, one PyTorch import; "
        "a version it cannot attribute, e.g. one that crashes under ncu, falls back to its own); per-version: one "
        "ncu process per version")
          .choices({"one", "per-version"})
          .def(kDefaultOneNcuSession ? "one" : "per-version"),
      R("--sweep", kRun, T::Texts, "sweep",
        "Run every version at every size: NAME=LO..HI (powers of two from LO: N=1Ki..64Mi; Ki/Mi/Gi suffixes) or "
        "NAME=V1,V2,...; repeat for a grid; --size expressions are evaluated per point (docs/SCALE.md in the kprof "
        "source)"),
      R("--gpus", kRun, T::Text, "gpus",
        "Spread the units over GPUs of this host, one worker process per GPU (CUDA_VISIBLE_DEVICES): all, or "
        "indices / UUIDs 0,1,...")
          .excludes({"--slurm", "--gpu"}),
      R("--slurm", kRun, T::Flag, "slurm",
        "Run the units as a Slurm array job (sbatch) over OUTPUT_DIR, which must be on a folder the nodes share; "
        "waits and merges (docs/SCALE.md in the kprof source)"),
      R("--partition", kRun, T::Text, "slurm_partition", "--slurm: the partition").needs("--slurm"),
      R("--gres", kRun, T::Text, "slurm_gres", "--slurm: generic resources per array task (none: no --gres)")
          .def(kDefaultSlurmGres)
          .needs("--slurm"),
      R("--time", kRun, T::Text, "slurm_time",
        "--slurm: time limit per array task (Slurm's format, e.g. 30 or 1:00:00)")
          .needs("--slurm"),
      R("--max-parallel", kRun, T::Int, "slurm_max_parallel", "--slurm: array tasks running at once")
          .positive()
          .def(kDefaultSlurmMaxParallel)
          .needs("--slurm"),
      R("--units-per-task", kRun, T::Int, "slurm_units_per_task",
        "--slurm: units per array task (default: the number of versions, one size per task)")
          .positive()
          .rule("the number of versions")
          .needs("--slurm"),
      R("--no-wait", kRun, T::Flag, "no_wait", "--slurm: submit and return; run the same command again to merge")
          .needs("--slurm"),
      R("--decide", kRun, T::Flag, "decide.enabled",
        "Keep or revert: every correct version stays loaded, then all are timed in interleaved rounds (a new "
        "random order each round, the first version also against itself as the A/A noise floor); one keep / "
        "revert / inconclusive per version against the first (comparison.json \"decision\"); timing only unless "
        "--decide-ncu")
          .excludes({"--sweep", "--gpus", "--slurm"}),
      R("--rounds", kRun, T::Int, "decide.rounds", "--decide: interleaved rounds to make")
          .range(kMinRounds, 1000000)
          .def(kDefaultRounds)
          .needs("--decide"),
      R("--decide-budget", kRun, T::Number, "decide.budget_s",
        fmt::format("--decide: seconds the rounds may take; they stop there (after {} rounds) even before --rounds",
                    kMinRounds))
          .unit("s")
          .positive()
          .def(kDefaultDecideBudgetS)
          .needs("--decide"),
      R("--calls-per-round", kRun, T::Int, "decide.calls_per_round",
        "--decide: calls of each version per round (its time in the round is their median)")
          .range(1, 1000)
          .def(kDefaultCallsPerSlot)
          .needs("--decide"),
      R("--min-gain", kRun, T::Number, "decide.min_gain_pct",
        "--decide: the smallest gain, percent, that counts (the threshold is the larger of it and the A/A floor)")
          .unit("%")
          .range(0.0, 100.0)
          .def(100 * kDefaultMinGain)
          .needs("--decide"),
      R("--confirm", kRun, T::Flag, "decide.confirm",
        "--decide: a second, independent set of rounds; keep or revert only when both sets agree")
          .needs("--decide"),
      R("--decide-time", kRun, T::Text, "decide.time",
        "--decide: what a round times: call (CUDA events around each call) or kernel (the call's kernels, CUPTI "
        "records: no launch overhead)")
          .choices({"call", "kernel"})
          .def("call")
          .needs("--decide"),
      R("--decide-ncu", kRun, T::Flag, "decide.ncu",
        "--decide: also time and profile each version with ncu as a plain run does, before the rounds")
          .needs("--decide"),
      // ---- compare
      R("--fail-if-slower", {"compare"}, T::Number, "fail_if_slower_pct",
        "Exit 1 when a version is slower than the baseline beyond noise and by more than PCT %, no longer "
        "correct, or missing")
          .unit("%")
          .at_least(0)
          .rule("no gate"),
      R("--output", {"compare"}, T::Path, "output_dir", "Folder for comparison.md / comparison.json")
          .shrt("-o")
          .def(kDefaultCompareDir),
      // ---- analyze
      R("--output-dir", {"analyze"}, T::Path, "output_dir",
        "Folder for ncu_summary.md, ncu_details.md (and analysis.json)")
          .shrt("-o")
          .def(kDefaultAnalyzeDir),
      R("--json", {"analyze"}, T::Flag, "json", "Print the verdict as JSON on stdout and write DIR/analysis.json")
          .internal(),
      R("--timeout", {"analyze"}, T::Number, "export_timeout_s", "Seconds allowed for ncu to export a .ncu-rep")
          .unit("s")
          .positive()
          .def(kDefaultExportTimeoutS),
      // ---- every command: the wall-clock limit of the whole call (issue 50). The Python API and MCP
      // stop the call's process group past it and fail in their error shape; the command line says
      // so (exit 1) and ends, its children (ncu, nvcc) stopped with it (core/subprocess.hpp).
      R("--wall-timeout-s", {"env", "check", "profile", "run", "compare", "analyze"}, T::Number, "wall_timeout_s",
        "Seconds the whole command may take; past them it is stopped with everything it started and fails "
        "(0: no limit)")
          .unit("s")
          .at_least(0)
          .def(kDefaultWallTimeoutS),
  };
  return t;
}

/// Levenshtein distance.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

const char* type_name(OptionType t) {
  switch (t) {
    case T::Flag:
      return "flag";
    case T::Int:
      return "int";
    case T::Number:
      return "number";
    case T::Text:
      return "text";
    case T::Path:
      return "path";
    case T::Texts:
      return "texts";
    case T::Paths:
      return "paths";
  }
  return "text";
}

/// The default of `r` as a typed JSON value (null when none).
nlohmann::json typed_default(const OptionRow& r) {
  if (r.type == T::Flag) return false;
  if (r.default_value.empty()) return nullptr;
  if (r.type == T::Int) return std::stoll(r.default_value);
  if (r.type == T::Number) return std::stod(r.default_value);
  return r.default_value;
}

}  // namespace

std::string OptionRow::keyword() const {
  std::string k = flag.substr(2);
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

bool OptionRow::in(const std::string& command) const {
  return std::find(commands.begin(), commands.end(), command) != commands.end();
}

const std::vector<std::string>& public_commands() {
  static const std::vector<std::string> c = {"env", "clocks", "build", "check", "profile", "run", "compare", "analyze"};
  return c;
}

const std::vector<OptionRow>& option_table() {
  static const std::vector<OptionRow> table = build_table();
  return table;
}

const OptionRow& option_row(const std::string& command, const std::string& flag) {
  for (const auto& r : option_table())
    if (r.flag == flag && r.in(command)) return r;
  throw std::out_of_range("kprof: no option " + flag + " of `kprof " + command + "` in the option table");
}

std::vector<const OptionRow*> command_rows(const std::string& command) {
  std::vector<const OptionRow*> out;
  for (const auto& r : option_table())
    if (r.in(command)) out.push_back(&r);
  return out;
}

nlohmann::json option_table_json() {
  nlohmann::json cmds = nlohmann::json::object();
  for (const auto& c : public_commands()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const OptionRow* r : command_rows(c)) {
      rows.push_back({{"flag", r->flag},
                      {"short", r->short_name},
                      {"keyword", r->keyword()},
                      {"type", type_name(r->type)},
                      {"unit", r->unit},
                      {"choices", r->choices},
                      {"min", r->min ? nlohmann::json(*r->min) : nlohmann::json(nullptr)},
                      {"max", r->max ? nlohmann::json(*r->max) : nlohmann::json(nullptr)},
                      {"min_exclusive", r->min_exclusive},
                      {"field", r->field},
                      {"default", typed_default(*r)},
                      {"default_rule", r->default_rule},
                      {"help", r->help},
                      {"alias_of", r->alias_of},
                      {"needs", r->needs},
                      {"excludes", r->excludes},
                      {"hidden", r->hidden},
                      {"python", r->python}});
    }
    cmds[c] = std::move(rows);
  }
  return {{"kprof_version", KPROF_VERSION}, {"commands", std::move(cmds)}};
}

std::string option_table_markdown(const std::string& command) {
  std::string out = "| option | type | unit | default | what it does |\n|---|---|---|---|---|\n";
  for (const OptionRow* r : command_rows(command)) {
    if (r->hidden) continue;
    std::string name = "`" + r->flag + "`" + (r->short_name.empty() ? "" : ", `" + r->short_name + "`");
    std::string type = type_name(r->type);
    if (!r->choices.empty()) {
      type.clear();
      for (const auto& c : r->choices) type += (type.empty() ? "" : " \\| ") + c;
    }
    std::string def = !r->default_value.empty() ? "`" + r->default_value + "`" : r->default_rule;
    out += fmt::format("| {} | {} | {} | {} | {} |\n", name, type, r->unit, def, r->help);
  }
  return out;
}

std::string closest_keyword(const std::string& command, const std::string& word) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const OptionRow* r : command_rows(command)) {
    if (!r->python) continue;
    const std::string k = r->keyword();
    size_t d = edit_distance(word, k);
    // Close: at most 2 edits, or a third of the longer name (difflib's 0.6 ratio is about that).
    if (d <= std::max<size_t>(2, std::max(word.size(), k.size()) / 3) && d < best_d) {
      best = k;
      best_d = d;
    }
  }
  return best;
}

}  // namespace kprof::api
