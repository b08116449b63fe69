#include "core/json_text.hpp"

#include <fmt/format.h>

#include "core/fs.hpp"
#include "core/text.hpp"

namespace kprof {

nlohmann::json escape_foreign_bytes_json(const nlohmann::json& j) {
  if (j.is_string()) return escape_foreign_bytes(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(escape_foreign_bytes_json(v));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : j.items()) out[escape_foreign_bytes(k)] = escape_foreign_bytes_json(v);
    return out;
  }
  return j;
}

std::string json_text(const nlohmann::json& j, int indent) {
  try {
    return j.dump(indent);
  } catch (const nlohmann::json::type_error& e) {
    if (e.id != 316) throw;  // 316: a string that is not UTF-8
    return escape_foreign_bytes_json(j).dump(indent);
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw damaged_input(path, text.empty() ? std::string("it is empty")
                                           : fmt::format("its JSON breaks off at byte {} of {}", e.byte, text.size()));
  }
}

Error wrong_kind_in(const std::string& path, const std::string& what_read) {
  return damaged_input(path,
                       "a field holds the wrong kind of value" + (what_read.empty() ? "" : " (" + what_read + ")"),
                       "write the file again with the tool that made it; an edited or cut file cannot be read");
}

}  // namespace kprof
