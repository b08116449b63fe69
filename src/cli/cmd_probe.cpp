// kprof __probe (hidden): launches kprof's own trivial kernel once and exits 0. `kprof env` runs
// it under ncu with one metric to learn whether ncu may read the GPU's performance counters.
#include <memory>

#include "cli/commands.hpp"
#include "device/gpu_index.hpp"
#include "stages/env/probe_kernel.hpp"

namespace kprof {

void register_probe(CLI::App& app, CommandAction& action) {
  auto gpu = std::make_shared<int>(kDefaultGpu);
  auto* sub = app.add_subcommand("__probe", "Launch kprof's probe kernel once (used by `kprof env` under ncu)");
  sub->group("");  // hidden from --help
  sub->add_option("--gpu", *gpu, "CUDA device index")->check(CLI::Range(0, 4095));
  sub->callback([&action, gpu] {
    action = [gpu] {
      run_probe_kernel(*gpu);
      return 0;
    };
  });
}

}  // namespace kprof
