#include "core/host_json.hpp"

#include <algorithm>
#include <type_traits>

#include "core/error.hpp"

namespace kprof {

nlohmann::json host_to_json(const Host& h) {
  return {{"python", h.python ? nlohmann::json(*h.python) : nlohmann::json()},
          {"self_command", h.self_command},
          {"cupti_dirs", h.cupti_dirs}};
}

Host host_from_json(const nlohmann::json& j) {
  if (!j.is_object())
    throw usage_error(std::string("request field 'host' is not an object (") + j.type_name() + ")",
                      "the host is {\"python\", \"self_command\", \"cupti_dirs\"}");
  Host h;
  auto get = [&j](const char* key, auto& out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return false;
    try {
      out = it->get<std::decay_t<decltype(out)>>();
    } catch (const nlohmann::json::exception&) {
      throw usage_error(std::string("request field 'host.") + key + "' has the wrong type (" + it->type_name() + ")",
                        "see `kprof __options` for each field's type");
    }
    return true;
  };
  std::string python;
  if (get("python", python)) h.python = python;
  get("self_command", h.self_command);
  get("cupti_dirs", h.cupti_dirs);
  return h;
}

void adopt_host(const Host& parent) {
  Host h = current_host();
  if (!parent.self_command.empty()) h.self_command = parent.self_command;
  if (!parent.cupti_dirs.empty()) {  // the parent's first, then any of this process's own it lacks
    std::vector<std::string> dirs = parent.cupti_dirs;
    for (const auto& d : h.cupti_dirs)
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    h.cupti_dirs = std::move(dirs);
  }
  set_host(std::move(h));
}

}  // namespace kprof
