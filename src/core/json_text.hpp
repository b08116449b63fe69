// JSON reports as text: always valid UTF-8, whatever bytes their strings hold.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"

namespace kprof {

/// `j` as JSON text (`indent` as nlohmann's dump; -1 for one line). A string or key that is not
/// valid UTF-8 (a kernel name with 0xFF, a path in Latin-1) has its foreign bytes written as
/// `\xff` by escape_foreign_bytes (core/text.hpp), the same way Markdown shows them, instead of
/// nlohmann's type_error 316: a report keeps its verdict. Never throws for bytes.
std::string json_text(const nlohmann::json& j, int indent = 2);

/// A copy of `j` with escape_foreign_bytes applied to every string and key.
nlohmann::json escape_foreign_bytes_json(const nlohmann::json& j);

/// The JSON document in the file at `path` (read_file, core/fs.hpp). Throws damaged_input
/// (exit 2, core/error.hpp) naming the file and how far it reads ("its JSON breaks off at byte
/// 812 of 4096") when it is not whole JSON; usage_error when it cannot be read.
nlohmann::json read_json_file(const std::string& path);

/// damaged_input for `path` whose JSON parsed but holds a value of the wrong kind (nlohmann's
/// type or out-of-range error, whose own text is left out): "a field holds the wrong kind of value".
Error wrong_kind_in(const std::string& path, const std::string& what_read = "");

}  // namespace kprof
