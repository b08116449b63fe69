// The kprof command line, behind the executable (cli/main.cpp) and the Python package's extension
// module (cli/module.cpp): one parser, one dispatch, one set of exit codes.
#include "cli/entry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <thread>

#include "core/outcome.hpp"
#include "api/options.hpp"
#include "cli/commands.hpp"
#include "cli/kernel_options.hpp"
#include "cli/run_options.hpp"
#include "cli/table_options.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "flows/output_lock.hpp"
#include "kernel/guarded_call.hpp"
#include "python/chart_pool.hpp"
#include "python/interpreter.hpp"
#include "core/settings.hpp"
#include "device/cupti_loader.hpp"

namespace kprof {

double& wall_timeout_s() {
  static double limit = 0;
  return limit;
}

void register_public_commands(CLI::App& app, CommandAction& action) {
  register_env(app, action);
  register_clocks(app, action);
  register_check(app, action);
  register_profile(app, action);
  register_build(app, action);
  register_analyze(app, action);
  register_run(app, action);
  register_compare(app, action);
  // --wall-timeout-s: one row of every command that has it, one value (the command parsed).
  for (const auto& command : api::public_commands())
    for (const api::OptionRow* row : api::command_rows(command))
      if (row->flag == "--wall-timeout-s")
        add_table_option(app.get_subcommand(command), command, row->flag, wall_timeout_s());
}

}  // namespace kprof

namespace {

/// ends_through_exit(argv) of the command running in this process.
bool internal_command = false;

/// The public command being run ("" before parsing): the outcome document names it.
std::string public_command;

/// Writes the outcome document (core/outcome.hpp) to $KPROF_OUTCOME_FILE when it is set: a public
/// command's for the Python API and the MCP tools, an internal child's (__runner, __session,
/// __worker, __check, __probe) for the kprof that started it. The variable is always this
/// process's own: core/subprocess.hpp run_process passes none on unless the parent names one.
void write_outcome_file(int code) {
  // Read here, not in core/settings (whose struct every layer includes): the parent sets it per child.
  const char* env = std::getenv(kprof::kOutcomeFileVar);
  const std::string file = env ? env : "";
  if (file.empty()) return;
  if (!kprof::write_outcome(file, public_command, code))
    std::fprintf(stderr, "kprof: could not write the outcome document %s\n", file.c_str());
}

/// Past --wall-timeout-s (api/options.cpp; 0: none) the command says so and ends (exit 1) from
/// a thread of its own; the processes it started end with it (core/subprocess.hpp: they get
/// SIGTERM when kprof ends). Reports are written whole or not at all (write_file_atomic), so
/// none is left half-written.
void arm_wall_clock_limit() {
  const double limit = kprof::wall_timeout_s();
  if (!(limit > 0) || internal_command) return;
  std::thread([limit] {
    std::this_thread::sleep_for(std::chrono::duration<double>(limit));
    kprof::print_error(fmt::format("kprof {} ran past its wall-clock limit of {:g} s and was stopped, with "
                                   "everything it started; the reports it had written are whole, the rest "
                                   "were not written",
                                   public_command, limit),
                       "pass a larger --wall-timeout-s (0: no limit), or fewer versions or sizes");
    kprof::trace_event("wall-clock limit reached");
    write_outcome_file(static_cast<int>(kprof::ExitCode::Failed));
    std::_Exit(static_cast<int>(kprof::ExitCode::Failed));
  }).detach();
}

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
  write_outcome_file(code);
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

/// The listed command `word` is a misspelling of (up to 2 edits, or a third of its letters; or
/// the one command it starts), "" when none is that close: "anlyze" -> "analyze".
std::string nearest_command(CLI::App& app, const std::string& word) {
  const std::string w = kprof::to_lower(word);
  std::vector<std::string> listed;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) listed.push_back(sub->get_name());
  return kprof::nearest_name(w, listed, std::max<size_t>(2, w.size() / 3), [&w](const std::string& name) {
    return w.size() >= 2 && name.compare(0, w.size(), w) == 0;
  });
}

/// The commands that time kernels load CUPTI before any other CUDA or Python work, so that
/// PyTorch, imported later by ref.py, binds to the same libcupti (device/cupti_loader.hpp).
bool loads_cupti_first(const std::string& command) {
  return command == "check" || command == "profile" || command == "run" || command == "__runner" ||
         command == "__worker" || command == "env" || command == "__check";
}

/// Every command registered on `app`; `action` receives the parsed command's work.
void register_commands(CLI::App& app, kprof::CommandAction& action) {
  using namespace kprof;
  app.set_version_flag("--version", std::string("kprof ") + KPROF_VERSION);
  app.require_subcommand(1, 1);
  app.fallthrough(false);
  register_public_commands(app, action);
  register_mcp(app, action);
  register_runner(app, action);
  register_probe(app, action);
  register_check_child(app, action);
  register_worker(app, action);
  register_options(app, action);
}

/// The usage error of a CLI11 parse failure, in kprof's words (message and hint).
kprof::CliOutcome parse_failure(CLI::App& app, const CLI::ParseError& e) {
  std::string cmd;
  for (const auto* s : app.get_subcommands()) cmd = s->get_name();
  std::string what = e.what();
  const std::string convert = "Could not convert: ";  // CLI11's words for "--iters = 2.5"
  const int usage = static_cast<int>(kprof::ExitCode::Usage);
  if (what.rfind("kernel: At Most 1 required but received", 0) == 0)  // e.g. a shell glob
    return {usage,
            "`kprof " + cmd + "` takes one kernel file; " +
                what.substr(std::string("kernel: At Most 1 required but ").size()),
            "name one file, or compare several versions with `kprof run K1 K2 ...`"};
  if (what.rfind(convert, 0) == 0 && what.find(" = ") != std::string::npos)
    return {
        usage,
        fmt::format("{}: '{}' is not a value it takes", what.substr(convert.size(), what.find(" = ") - convert.size()),
                    what.substr(what.find(" = ") + 3)),
        "`kprof " + cmd + " --help` gives each option's type (INT: a whole number, FLOAT: a number)"};
  return {usage, what, "run `kprof " + (cmd.empty() ? std::string() : cmd + " ") + "--help` for the options"};
}

constexpr const char* kAbout =
    "kprof: environment check, correctness against a Python reference, GPU timing,\n"
    "Nsight Compute metrics and the bottleneck of one GPU kernel (cuda-cpp, cutlass, triton,\n"
    "cute-dsl).\n\n"
    "Exit codes: 0 success; 1 the thing checked failed (not ready, wrong output, kernel fault,\n"
    "ncu could not measure); 2 usage or input error.";

/// What the words show before parsing: an unknown command or a misplaced option (exit 2).
/// `code` < 0: go on and parse.
kprof::CliOutcome pre_parse(CLI::App& app, const std::vector<std::string>& args) {
  const int usage = static_cast<int>(kprof::ExitCode::Usage);
  if (const std::string& first = args[1]; first.rfind("-", 0) != 0) {
    try {
      app.get_subcommand(first);
    } catch (const CLI::OptionNotFound&) {
      const std::string near = nearest_command(app, first);
      return {usage, "unknown command '" + first + "'" + (near.empty() ? "" : ": did you mean " + near + "?"),
              "the commands are " + command_names(app) + "; run `kprof --help`"};
    }
  }
  if (auto [why, hint] = find_misplaced_option(app, args); !why.empty()) return {usage, why, hint};
  return {-1, "", ""};
}

/// Parses `args` into `app`; {-1} when a command is ready to run, else the exit (help and
/// --version: 0 after printing when `print`; a usage error: 2, printed when `print`).
kprof::CliOutcome parse(CLI::App& app, const std::vector<std::string>& args, bool print) {
  using namespace kprof;
  if (CliOutcome pre = pre_parse(app, args); pre.code >= 0) {
    if (print) print_error(pre.message, pre.hint);
    return pre;
  }
  std::vector<const char*> cargs;
  for (const auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::Success& e) {
    return {print ? app.exit(e) : 0, "", ""};
  } catch (const CLI::ParseError& e) {
    CliOutcome failed = parse_failure(app, e);
    if (print) print_error(failed.message, failed.hint);
    return failed;
  } catch (const Error& e) {
    if (print) print_error(e.what(), e.hint());
    return {static_cast<int>(e.code()), e.what(), e.hint()};
  }
  return {-1, "", ""};
}

}  // namespace

namespace kprof {

bool ends_through_exit(const std::vector<std::string>& argv) {
  return (argv.size() > 1 && argv[1].rfind("__", 0) == 0) || settings().full_exit;
}

CliOutcome cli_check(const std::vector<std::string>& argv) {
  if (argv.size() < 2) return {static_cast<int>(ExitCode::Usage), "no command given", "run `kprof --help`"};
  CLI::App app{kAbout, "kprof"};
  CommandAction action;
  register_commands(app, action);
  CliOutcome r = parse(app, rewrite_nvcc_flags(argv), false);
  if (r.code >= 0) return r;
  r.code = 0;
  for (CLI::App* sub : app.get_subcommands()) {
    r.command = sub->get_name();
    try {
      const CLI::Option* o = sub->get_option("-o");
      r.output = o->count() > 0 ? o->as<std::string>() : o->get_default_str();
    } catch (const CLI::OptionNotFound&) {
    }
  }
  return r;
}

namespace {

/// The folder the command parsed into `app` writes its reports to, "" when it writes none: what its
/// -o sets, by the option table's field (api/options.hpp): a folder ("output_dir") is itself, a
/// report file ("output_file": env_check.md, or a folder when it ends in '/' or is one) its folder,
/// anything else (build's .so: "output_so") none.
std::string output_folder_of(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands()) {
    for (const kprof::api::OptionRow* row : kprof::api::command_rows(sub->get_name())) {
      if (row->short_name != "-o") continue;
      const CLI::Option* o = sub->get_option("-o");
      std::string out = o->count() > 0 ? o->as<std::string>() : o->get_default_str();
      if (row->field == "output_dir") return out;
      if (row->field != "output_file" || out.empty()) return "";
      return out.back() == '/' || std::filesystem::is_directory(out) ? out : kprof::parent_dir(out);
    }
  }
  return "";
}

}  // namespace

int cli_main(const std::vector<std::string>& argv) {
  trace_event(std::string("start ") + (argv.size() > 1 ? argv[1] : ""));
  keep_triton_autotuning();  // before any thread or child: the ncu runner profiles the config that was timed
  CLI::App app{kAbout, "kprof"};
  CommandAction action;
  register_commands(app, action);
  if (argv.size() < 2) {
    std::fputs(app.help().c_str(), stdout);
    return leave(static_cast<int>(ExitCode::Usage));
  }
  // nvcc flags after `--` become --nvcc-flag=FLAG (check, profile, run, __runner).
  std::vector<std::string> args = rewrite_nvcc_flags(argv);
  internal_command = ends_through_exit(args);
  public_command = args[1].rfind("-", 0) == 0 ? "" : args[1];
  if (CliOutcome r = parse(app, args, true); r.code >= 0) {
    write_outcome_file(r.code);
    return leave(r.code);
  }
  if (!action) return leave(static_cast<int>(ExitCode::Usage));
  arm_wall_clock_limit();
  if (loads_cupti_first(args[1])) cupti_load();
  try {
    // One run, one output folder: a second run into the same -o waits for the first (issue 50).
    OutputFolderLock folder(internal_command ? std::string() : output_folder_of(app));
    const int code = action();
    folder.release();  // its lock file goes with it: finish() leaves through _Exit, past every destructor
    return finish(code);
  } catch (const Error& e) {
    print_error(e.what(), e.hint());
    return finish(static_cast<int>(e.code()));
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what(),
                "this is a kprof bug; please report it with the command line you ran");
    return finish(static_cast<int>(ExitCode::Failed));
  }
}

}  // namespace kprof
