// Helpers the typed requests share (api/requests.cpp, api/command_requests.cpp,
// api/run_request.cpp): reading a field of a request's JSON, and a value against its row's range.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/dims.hpp"
#include "core/host.hpp"

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

/// Dimensions as read from a request: {"NAME": "TEXT"} (a number is taken as its JSON text).
/// Error (exit 2) naming `key` when the value is not an object.
void read_field(const nlohmann::json& j, const char* key, Dims& out);

/// The host (core/host_json.hpp) as read from a request; Error (exit 2) naming a key of another type.
void read_field(const nlohmann::json& j, const char* key, Host& out);

/// `v` under `key` in `j` (Dims as {"NAME": "TEXT"}, Host as core/host_json.hpp writes it).
template <class V>
void write_field(nlohmann::json& j, const char* key, const V& v) {
  j[key] = v;
}
void write_field(nlohmann::json& j, const char* key, const Dims& d);
void write_field(nlohmann::json& j, const char* key, const Host& h);

// A request's fields are listed once, as a field list: a generic lambda `fields(r, f)` calling
// f("json_key", r.member) for each field. The list drives both directions, so a field cannot reach
// one and miss the other.

/// Every field `fields` lists of `r`, written into `j`.
template <class R, class Fields>
void put_fields(nlohmann::json& j, const R& r, const Fields& fields) {
  fields(r, [&j](const char* key, const auto& v) { write_field(j, key, v); });
}

/// Every field `fields` lists that `j` holds, read into `r` (read_field's checks: Error exit 2).
template <class R, class Fields>
void get_fields(const nlohmann::json& j, R& r, const Fields& fields) {
  fields(r, [&j](const char* key, auto& v) { read_field(j, key, v); });
}

/// Error (exit 2) when `value` of `flag` (row of `command`) is outside the row's range.
void check_range(const std::string& command, const std::string& flag, double value);

/// Error (exit 2) when `value` of `flag` (row of `command`) is not one of the row's choices.
void check_choice(const std::string& command, const std::string& flag, const std::string& value);

/// Error (exit 2) when `j` is not a JSON object (a request must be one).
void check_object(const nlohmann::json& j, const char* what);

}  // namespace kprof::api
