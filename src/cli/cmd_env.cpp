// kprof env: placeholder until its stage lands (owner: see docs/ARCHITECTURE.md).
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kprof {

void register_env(CLI::App& app, CommandAction& action) {
  auto* sub = app.add_subcommand("env", "(not yet available)");
  sub->allow_extras();
  sub->callback([&action] { action = [] () -> int { throw usage_error("kprof env is not available yet"); }; });
}

}  // namespace kprof
