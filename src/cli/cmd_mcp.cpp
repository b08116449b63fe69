// kprof mcp: listed by --help with the other commands; the MCP server itself is the Python
// package's (python/kprof/__main__.py answers `kprof mcp` before the core is reached), so the
// command here only runs in the standalone executable, which says where the server is.
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kprof {

void register_mcp(CLI::App& app, CommandAction& action) {
  auto* sub = app.add_subcommand("mcp", "Serve kprof's commands as MCP tools on stdin/stdout (the Python package)");
  sub->footer(
      "Serves env, check, profile and run (jobs, polled with job_status), compare, analyze and findings as\n"
      "MCP tools over stdio (the MCP Python SDK: pip install 'kprof[mcp]'). It takes no options and ends\n"
      "when its client closes stdin. It is the Python package's command (`kprof` installed by pip, or\n"
      "`python -m kprof mcp`); docs/USAGE.md in the kprof source shows a client's configuration.");
  sub->callback([&action] {
    action = []() -> int {
      throw usage_error("`kprof mcp` is served by kprof's Python package; this kprof executable has no MCP server",
                        "pip install 'kprof[mcp]', then run `kprof mcp` (or `python -m kprof mcp`) from that "
                        "environment");
    };
  });
}

}  // namespace kprof
