// report.html: one self-contained page (inline CSS, SVG and a little JavaScript; no network, no
// external font) rendered from the same JSON documents the flows write beside it (analysis.json,
// profile.json, comparison.json, env_check.json, correctness.json), so every number on the page is
// the JSON's. Readable with JavaScript off: verdicts and tables are HTML; the script only sorts
// tables. Every string taken from the user's files goes through html_escape (one function).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kprof {

/// `s` with &, <, >, " and ' replaced by entities: safe in element text and in quoted attributes
/// (kernel and template names, paths, source lines, SASS). The one escape of the page.
std::string html_escape(std::string_view s);

/// A JSON value as page text: numbers with 4 significant digits (html_num), strings escaped,
/// null as "n/a", booleans "yes"/"no", arrays joined by ", ".
std::string html_value(const nlohmann::json& v);

/// A number with 4 significant digits ("%.4g"), "n/a" for NaN/null; the page's one number format,
/// which the browser tests use to find the JSON's numbers in the visible text.
std::string html_num(double v);
std::string html_num(const nlohmann::json& v);

/// o[key] when `o` is an object holding it, else a null value (the page reads documents whose
/// optional parts may be absent or null).
const nlohmann::json& json_at(const nlohmann::json& o, const char* key);

/// o[key] as a string, "" when absent or not a string.
std::string json_str(const nlohmann::json& o, const char* key);

/// A table: header cells and rows of cells that are ALREADY HTML (escape what comes from input).
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::string& css_class = "");

/// A two-column table of a JSON object's scalar members (key, html_value); nested objects and
/// arrays of objects are left out.
std::string html_kv_table(const nlohmann::json& obj);

/// One section of the page: an anchor id (a-z0-9_-), its heading and its HTML body.
struct HtmlSection {
  std::string id;
  std::string title;
  std::string body;
};

/// The page: <title>, a heading line, a sub-heading and the sections, with a table of contents.
struct HtmlPage {
  std::string title;
  std::string subtitle;
  std::vector<HtmlSection> sections;
};

/// The whole document (<!DOCTYPE html> ... </html>), CSS and the table-sort script inline.
std::string render_html(const HtmlPage& page);

/// What a page leaves out: with include_source false, source lines and SASS of hot lines are
/// replaced by "(source left out)" (kprof's --html-no-source).
struct HtmlOptions {
  bool include_source = true;
};

}  // namespace kprof
