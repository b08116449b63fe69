// kprof runner: placeholder until its stage lands (owner: see docs/ARCHITECTURE.md).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kprof {

void register_runner(CLI::App& app, CommandAction& action) {
  auto* sub = app.add_subcommand("__runner", "");
  sub->allow_extras();
  sub->callback([&action] { action = [] () -> int { throw usage_error("kprof runner is not available yet"); }; });
}

}  // namespace kprof
