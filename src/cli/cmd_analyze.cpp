// kprof analyze: placeholder until its stage lands (owner: see docs/ARCHITECTURE.md).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kprof {

void register_analyze(CLI::App& app, CommandAction& action) {
  auto* sub = app.add_subcommand("analyze", "(not yet available)");
  sub->allow_extras();
  sub->callback([&action] { action = [] () -> int { throw usage_error("kprof analyze is not available yet"); }; });
}

}  // namespace kprof
