// kprof __probe (hidden): launches kprof's own trivial kernel once and exits 0. `kprof env` runs
// it under ncu with one metric to learn whether ncu may read the GPU's performance counters.
// One request in, one outcome out (issue 47): it reads the typed request (core/probe_request.hpp)
// from --request FILE and writes its outcome document where the parent names it
// (KPROF_OUTCOME_FILE, cli/entry.cpp), which the parent reads (core/tools.hpp probe_ncu_counters).
#include <memory>

#include "cli/commands.hpp"
#include "cli/request_file.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/host_json.hpp"
#include "core/probe_request.hpp"
#include "device/gpu_index.hpp"
#include "stages/env/probe_kernel.hpp"

namespace kprof {

namespace {

/// The request in `path`. Error (exit 2) naming the file when it cannot be read or is not one.
ProbeRequest read_probe_request(const std::string& path) {
  return probe_request_from_json(read_request_file(path, "probe"));
}

}  // namespace

void register_probe(CLI::App& app, CommandAction& action) {
  auto gpu = std::make_shared<int>(kDefaultGpu);
  auto request = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("__probe", "Launch kprof's probe kernel once (used by `kprof env` under ncu)");
  sub->group("");  // hidden from --help
  sub->add_option("--gpu", *gpu, "CUDA device index")->check(CLI::Range(0, 4095));
  sub->add_option("--request", *request, "The typed request (JSON, core/probe_request.hpp) instead of --gpu");
  sub->callback([sub, &action, gpu, request] {
    if (!request->empty()) {
      if (sub->get_option("--gpu")->count() > 0)
        throw usage_error("__probe --request takes no --gpu besides", "put the GPU in the request");
      ProbeRequest r = read_probe_request(*request);
      adopt_host(r.host);  // the parent's host, before anything loads
      *gpu = r.gpu;
    }
    action = [gpu] {
      run_probe_kernel(*gpu);
      return 0;
    };
  });
}

}  // namespace kprof
