// kprof clocks: show, lock (at the base clock, or --max at the maximum SM clock) or reset the SM clocks of one GPU (NVML).
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/table_options.hpp"
#include "core/error.hpp"
#include "stages/env/clocks.hpp"

namespace kprof {
namespace {

struct ClocksCli {
  int gpu = kDefaultGpu;
  bool lock = false, reset = false, dry_run = false, max = false;
};

int run_clocks_cli(const ClocksCli& o) {
  ClocksRequest req;
  req.gpu = o.gpu;
  req.action = o.lock ? ClocksAction::Lock : o.reset ? ClocksAction::Reset : ClocksAction::Show;
  req.dry_run = o.dry_run;
  req.max = o.max;
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
  auto* sub =
      app.add_subcommand("clocks", "Show, lock (at the base clock; --max: maximum) or reset a GPU's clocks (NVML)");
  sub->footer(
      "Shows the current / maximum SM and memory clocks of a GPU (NVML); --lock locks the SM clock at its\n"
      "base (TDP) clock for steadier timings, as nvbench advises (needs root); --lock --max at its maximum;\n"
      "--reset restores the defaults; --dry-run prints exactly what would be done and changes nothing.\n"
      "Exit 0 done, 1 clocks unreadable or NVML refused, 2 bad options.");
  add_table_option(sub, "clocks", "--gpu", o->gpu);
  auto* lock = add_table_option(sub, "clocks", "--lock", o->lock);
  add_table_option(sub, "clocks", "--max", o->max)->needs(lock);
  auto* reset = add_table_option(sub, "clocks", "--reset", o->reset);
  lock->excludes(reset);
  add_table_option(sub, "clocks", "--dry-run", o->dry_run);
  sub->callback([&action, o] { action = [o] { return run_clocks_cli(*o); }; });
}

}  // namespace kprof
