// kprof __options (hidden): prints the option table (api/options.hpp) as JSON, or one command's
// options as a Markdown table (--markdown COMMAND). scripts/gen_faces.py builds the Python stub
// and docs/OPTIONS.md from it; the tests check that both are current.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "api/options.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace kprof {

void register_options(CLI::App& app, CommandAction& action) {
  auto markdown = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("__options", "Print the option table as JSON (or one command's as Markdown)");
  sub->group("");  // hidden from --help
  sub->add_option("--markdown", *markdown, "One command's options as a Markdown table");
  sub->callback([&action, markdown] {
    action = [markdown] {
      if (markdown->empty()) {
        std::fputs((api::option_table_json().dump(2) + "\n").c_str(), stdout);
        return 0;
      }
      const auto& cmds = api::public_commands();
      if (std::find(cmds.begin(), cmds.end(), *markdown) == cmds.end())
        throw usage_error("no command " + *markdown + " in the option table");
      std::fputs(api::option_table_markdown(*markdown).c_str(), stdout);
      return 0;
    };
  });
}

}  // namespace kprof
