// kprof compare: saved results of different runs compared version by version, with a regression
// gate for CI scripts (flows/compare.hpp).
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "api/command_requests.hpp"
#include "cli/table_options.hpp"
#include "cli/validators.hpp"
#include "flows/compare.hpp"

namespace kprof {
namespace {

using CompareCli = api::CompareRequest;

}  // namespace

void register_compare(CLI::App& app, CommandAction& action) {
  auto c = std::make_shared<CompareCli>();
  auto* sub = app.add_subcommand("compare",
                                 "Compare saved results of different runs (profile.json / comparison.json) or Nsight "
                                 "Compute reports (.ncu-rep / .csv)");
  sub->footer(
      "Compare saved results of different runs (commits, days, machines): comparison.json of `kprof run`,\n"
      "profile.json of `kprof profile` (with the correctness.json beside it when present), or their folders.\n"
      "Versions are paired by name (one version per file: paired whatever their names); the first file is the\n"
      "baseline. Prints run's comparison table with noise-aware verdicts (across runs: the bootstrap interval of\n"
      "the ratio of medians from the saved per-call samples, 2% margins; without samples the larger standard\n"
      "deviation plus 2% of the baseline's median) and the change of every headline metric (time, SM and memory\n"
      "SOL, % of bound, achieved occupancy, DRAM bytes, leading stall). Files from another GPU, other dimensions,\n"
      "another seed or another schema_version are compared with a warning. Writes OUTPUT_DIR/comparison.md/.json.\n"
      "Exit 0; with --fail-if-slower PCT, 1 when a version is slower beyond noise and PCT %, no longer correct,\n"
      "or missing; 2 for an unreadable file.\n"
      "Nsight Compute reports are compared too, given as the files themselves: two or more .ncu-rep or raw .csv\n"
      "exports (what `kprof analyze` reads), the first the baseline: kernels paired by name and launch order, each\n"
      "pair's time ratio (one sample: no --fail-if-slower), class, SOL units, findings gone or new and the metrics\n"
      "that moved most. A folder is searched for kprof's results only (comparison.json, profile.json, units.json).");
  sub->add_option("results", c->inputs, "Saved results (or .ncu-rep / .csv reports): baseline first")
      ->required()
      ->expected(2, -1);
  add_table_option(sub, "compare", "--fail-if-slower", c->fail_if_slower_pct)->type_name("PCT");
  add_table_option(sub, "compare", "--output", c->output_dir);
  add_table_option(sub, "compare", "--no-html", c->no_html);
  sub->callback([c, &action] {
    api::validate(*c);
    action = [c] {
      std::optional<double> gate;
      if (c->fail_if_slower_pct >= 0) gate = c->fail_if_slower_pct;
      return run_compare(c->inputs, gate, c->output_dir, !c->no_html);
    };
  });
}

}  // namespace kprof
