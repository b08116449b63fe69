// Helpers the typed requests share (api/requests.cpp, api/command_requests.cpp,
// api/run_request.cpp): reading a field of a request's JSON, and a value against its row's range.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kprof::api {

/// Error (exit 2) naming request field `key` whose JSON value has another type (`type_name`).
[[noreturn]] void wrong_field_type(const char* key, const char* type_name);

/// The value of `key` in `j` read into `out` when present and not null; Error (exit 2) naming the
/// field when it has another type.
template <class V>
void read_field(const nlohmann::json& j, const char* key, V& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  try {
    out = it->get<V>();
  } catch (const nlohmann::json::exception&) {
    wrong_field_type(key, it->type_name());
  }
}

/// Error (exit 2) when `value` of `flag` (row of `command`) is outside the row's range.
void check_range(const std::string& command, const std::string& flag, double value);

/// Error (exit 2) when `value` of `flag` (row of `command`) is not one of the row's choices.
void check_choice(const std::string& command, const std::string& flag, const std::string& value);

/// Error (exit 2) when `j` is not a JSON object (a request must be one).
void check_object(const nlohmann::json& j, const char* what);

}  // namespace kprof::api
