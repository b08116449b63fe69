// kprof: check, time and profile one GPU kernel. See README.md.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/term.hpp"
#include "pipeline/guarded_call.hpp"

namespace {

/// Leaves through _Exit when a kernel hung or the CUDA context was lost: the normal teardown would
/// wait for the stuck work (kprof must never hang).
int finish(int code) { return kprof::exit_now_if_stuck(code); }

}  // namespace

int main(int argc, char** argv) {
  using namespace kprof;
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
  register_runner(app, action);
  register_probe(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return static_cast<int>(ExitCode::Usage);
  } catch (const Error& e) {
    print_error(e.what(), e.hint());
    return static_cast<int>(e.code());
  }
  if (!action) return static_cast<int>(ExitCode::Usage);
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
