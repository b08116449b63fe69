// The typed request an internal child receives (issue 47: one request in): the JSON file its parent
// wrote, named by --request (cmd_runner.cpp, cmd_check.cpp's __check, cmd_probe.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/error.hpp"
#include "core/fs.hpp"

namespace kprof {

/// The JSON in `path`, the `what` request ("runner", "check", "probe"). Error (exit 2) naming the
/// file when it is missing or not JSON; the request's own reader checks its fields.
inline nlohmann::json read_request_file(const std::string& path, const std::string& what) {
  if (!path_exists(path)) throw usage_error("cannot read the " + what + " request " + path + ": no such file");
  nlohmann::json j = nlohmann::json::parse(read_file(path), nullptr, false);
  if (j.is_discarded()) throw usage_error("the " + what + " request " + path + " is not JSON");
  return j;
}

}  // namespace kprof
