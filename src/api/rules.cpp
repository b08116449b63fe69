#include "api/rules.hpp"

#include <map>
#include <utility>

#include "api/options.hpp"
#include "core/error.hpp"

namespace kprof::api {
namespace {

/// The message and hint of an exclusion that has its own words (the scale options of `kprof run`).
std::pair<std::string, std::string> exclusion_words(const std::string& a, const std::string& b) {
  static const std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> own = {
      {{"--gpus", "--slurm"},
       {"--gpus and --slurm exclude each other", "with --slurm, Slurm gives each task its GPU (--gres)"}},
      {{"--gpus", "--gpu"}, {"--gpus and --gpu exclude each other", "give the GPUs with --gpus 0,1,... only"}},
  };
  if (auto it = own.find({a, b}); it != own.end()) return it->second;
  if (a == "--decide")
    return {"--decide times the versions in one process: it does not combine with --sweep, --gpus or --slurm",
            "decide at one size: drop the scale options, or run --decide once per size"};
  return {a + " excludes " + b, "give one of " + a + " and " + b};
}

}  // namespace

void check_option_rules(const std::string& command, const std::set<std::string>& given) {
  for (const OptionRow* r : command_rows(command)) {
    if (!given.count(r->flag)) continue;
    if (!r->needs.empty() && !given.count(r->needs))
      throw usage_error(
          r->flag + " is an option of " + r->needs,
          "add " + r->needs + (r->needs == "--slurm" ? " to run on a Slurm cluster" : "") + ", or drop " + r->flag);
  }
  for (const OptionRow* r : command_rows(command)) {
    if (!given.count(r->flag)) continue;
    for (const auto& other : r->excludes)
      if (given.count(other)) {
        auto [message, hint] = exclusion_words(r->flag, other);
        throw usage_error(message, hint);
      }
  }
}

}  // namespace kprof::api
