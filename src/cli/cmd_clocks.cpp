// kprof clocks: placeholder until its stage lands (owner: see docs/ARCHITECTURE.md).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kprof {

void register_clocks(CLI::App& app, CommandAction& action) {
  auto* sub = app.add_subcommand("clocks", "(not yet available)");
  sub->allow_extras();
  sub->callback([&action] { action = [] () -> int { throw usage_error("kprof clocks is not available yet"); }; });
}

}  // namespace kprof
