// kprof: check, time and profile one GPU kernel. See README.md.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/commands.hpp"
#include "cli/kernel_options.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "kernel/guarded_call.hpp"
#include "python/chart_pool.hpp"
#include "python/interpreter.hpp"
#include "core/settings.hpp"

namespace {

/// True for the hidden commands (`__runner`, `__session`, `__probe`, `__worker`): ncu profiles
/// the first three, and its injection library writes its results from the process's exit handlers.
/// Also under $KPROF_FULL_EXIT (a `kprof check` that compute-sanitizer runs, for the same reason).
bool internal_command = false;

/// main()'s own returns (usage errors, --help, --version) and finish(): the exit, traced.
int leave(int code) {
  kprof::trace_event("exit " + std::to_string(code));
  return code;
}

/// Leaves through _Exit once the command has finished: the normal teardown would wait for stuck
/// work when a kernel hung or the CUDA context was lost (kprof must never hang), and otherwise
/// only costs time (device/cuda.hpp exit_now). The hidden commands end normally unless stuck.
int finish(int code) {
  leave(code);
  if (!internal_command) {
    kprof::stop_chart_workers();  // each answered its charts; the static teardown that would stop them is skipped
    kprof::exit_now(code);
  }
  return kprof::exit_now_if_stuck(code);
}

/// The first `--NAME` in `args` that is not an option of its command and that kprof can name
/// better than CLI11 (kernel_options.hpp misplaced_option): an option of another command, a
/// misspelt option, `--N 1024` written with a space. Empty message when there is none.
std::pair<std::string, std::string> find_misplaced_option(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* sub = nullptr;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& w = args[i];
    if (!sub) {
      if (w.rfind("-", 0) == 0) continue;
      try {
        sub = app.get_subcommand(w);
      } catch (const CLI::OptionNotFound&) {
        return {};
      }
      continue;
    }
    if (w == "--") break;  // kprof build: nvcc's flags follow
    if (w.rfind("--", 0) != 0) continue;
    const bool attached = w.find('=') != std::string::npos;
    std::string value = attached ? w.substr(w.find('=') + 1) : "";
    if (!attached && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) value = args[i + 1];
    std::string hint;
    if (std::string why = kprof::misplaced_option(*sub, w, value, attached, hint); !why.empty()) return {why, hint};
  }
  return {};
}

/// "env, clocks, ... and build": the commands --help lists (hidden ones, in group "", left out).
std::string command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  if (names.size() < 2) return names.empty() ? "" : names[0];
  std::string last = names.back();
  names.pop_back();
  return fmt::format("{} and {}", fmt::join(names, ", "), last);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kprof;
  trace_event(std::string("start ") + (argc > 1 ? argv[1] : ""));
  keep_triton_autotuning();  // before any thread or child: the ncu runner profiles the config that was timed
  CLI::App app{
      "kprof: environment check, correctness against a Python reference, GPU timing,\n"
      "Nsight Compute metrics and the bottleneck of one GPU kernel (cuda-cpp, cutlass, triton,\n"
      "cute-dsl).\n\n"
      "Exit codes: 0 success; 1 the thing checked failed (not ready, wrong output, kernel fault,\n"
      "ncu could not measure); 2 usage or input error.",
      "kprof"};
  app.set_version_flag("--version", std::string("kprof ") + KPROF_VERSION);
  app.require_subcommand(1, 1);
  app.fallthrough(false);

  CommandAction action;
  register_env(app, action);
  register_clocks(app, action);
  register_check(app, action);
  register_profile(app, action);
  register_build(app, action);
  register_analyze(app, action);
  register_run(app, action);
  register_compare(app, action);
  register_runner(app, action);
  register_probe(app, action);
  register_worker(app, action);

  if (argc < 2) {
    std::fputs(app.help().c_str(), stdout);
    return leave(static_cast<int>(ExitCode::Usage));
  }
  if (std::string first = argv[1]; first.rfind("-", 0) != 0) {
    try {
      app.get_subcommand(first);
    } catch (const CLI::OptionNotFound&) {
      print_error("unknown command '" + first + "'", "the commands are " + command_names(app) + "; run `kprof --help`");
      return leave(static_cast<int>(ExitCode::Usage));
    }
  }
  // nvcc flags after `--` become --nvcc-flag=FLAG (check, profile, run, __runner).
  std::vector<std::string> args = rewrite_nvcc_flags(std::vector<std::string>(argv, argv + argc));
  // KPROF_FULL_EXIT: `kprof check --sanitize` runs its child under compute-sanitizer, whose
  // injection library must see the process end through its exit handlers (flows/sanitize.hpp).
  internal_command = std::string(argv[1]).rfind("__", 0) == 0 || settings().full_exit;
  if (auto [why, hint] = find_misplaced_option(app, args); !why.empty()) {
    print_error(why, hint);
    return leave(static_cast<int>(ExitCode::Usage));
  }
  set_invocation(args);  // `kprof run --sweep/--gpus/--slurm` hands its words to its workers
  std::vector<const char*> cargs;
  for (const auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::CallForHelp& e) {
    return leave(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return leave(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return leave(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::string cmd;
    for (const auto* s : app.get_subcommands()) cmd = s->get_name();
    std::string what = e.what();
    const std::string convert = "Could not convert: ";                  // CLI11's words for "--iters = 2.5"
    if (what.rfind("kernel: At Most 1 required but received", 0) == 0)  // e.g. a shell glob
      print_error("`kprof " + cmd + "` takes one kernel file; " +
                      what.substr(std::string("kernel: At Most 1 required but ").size()),
                  "name one file, or compare several versions with `kprof run K1 K2 ...`");
    else if (what.rfind(convert, 0) == 0 && what.find(" = ") != std::string::npos)
      print_error(fmt::format("{}: '{}' is not a value it takes",
                              what.substr(convert.size(), what.find(" = ") - convert.size()),
                              what.substr(what.find(" = ") + 3)),
                  "`kprof " + cmd + " --help` gives each option's type (INT: a whole number, FLOAT: a number)");
    else
      print_error(what, "run `kprof " + (cmd.empty() ? std::string() : cmd + " ") + "--help` for the options");
    return leave(static_cast<int>(ExitCode::Usage));
  } catch (const Error& e) {
    print_error(e.what(), e.hint());
    return leave(static_cast<int>(e.code()));
  }
  if (!action) return leave(static_cast<int>(ExitCode::Usage));
  try {
    return finish(action());
  } catch (const Error& e) {
    print_error(e.what(), e.hint());
    return finish(static_cast<int>(e.code()));
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what(),
                "this is a kprof bug; please report it with the command line you ran");
    return finish(static_cast<int>(ExitCode::Failed));
  }
}
