// kprof clocks: show, lock (at the maximum SM clock) or reset the SM clocks of one GPU (NVML).
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "stages/env/clocks.hpp"

namespace kprof {
namespace {

struct ClocksCli {
  int gpu = 0;
  bool lock = false, reset = false, dry_run = false;
};

int run_clocks_cli(const ClocksCli& o) {
  ClocksRequest req;
  req.gpu = o.gpu;
  req.action = o.lock ? ClocksAction::Lock : o.reset ? ClocksAction::Reset : ClocksAction::Show;
  req.dry_run = o.dry_run;
  NvmlClockControl ctl(o.gpu);
  std::string out;
  try {
    int rc = run_clocks(ctl, req, out);
    std::fputs(out.c_str(), stdout);
    return rc;
  } catch (...) {
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
    throw;
  }
}

}  // namespace

void register_clocks(CLI::App& app, CommandAction& action) {
  auto o = std::make_shared<ClocksCli>();
  auto* sub = app.add_subcommand("clocks", "Show, lock (at the maximum SM clock) or reset a GPU's clocks (NVML)");
  sub->footer(
      "Shows the current / maximum SM and memory clocks of a GPU (NVML); --lock locks the SM clock at its\n"
      "maximum for steadier timings (needs root), --reset restores the defaults, --dry-run prints exactly\n"
      "what would be done and changes nothing. Exit 0 done, 1 clocks unreadable or NVML refused, 2 bad options.");
  sub->add_option("--gpu", o->gpu, "CUDA device index")->capture_default_str()->check(CLI::Range(0, 4095));
  auto* lock = sub->add_flag("--lock", o->lock, "Lock the SM clock at its maximum (nvmlDeviceSetGpuLockedClocks)");
  auto* reset = sub->add_flag("--reset", o->reset, "Restore the default clocks (nvmlDeviceResetGpuLockedClocks)");
  lock->excludes(reset);
  sub->add_flag("--dry-run", o->dry_run, "Print what would be done; change nothing");
  sub->callback([&action, o] { action = [o] { return run_clocks_cli(*o); }; });
}

}  // namespace kprof
