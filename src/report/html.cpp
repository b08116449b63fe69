#include "report/html.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kprof {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string html_num(double v) {
  if (std::isnan(v) || std::isinf(v)) return "n/a";
  return fmt::format("{:.4g}", v);
}

std::string html_num(const nlohmann::json& v) {
  if (v.is_number()) return html_num(v.get<double>());
  if (v.is_string()) return html_escape(v.get<std::string>());
  return "n/a";
}

std::string html_value(const nlohmann::json& v) {
  if (v.is_null()) return "n/a";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return html_num(v.get<double>());
  if (v.is_string()) return html_escape(v.get<std::string>());
  if (v.is_array()) {
    std::string out;
    for (const auto& e : v) {
      if (e.is_object() || e.is_array()) continue;
      out += (out.empty() ? "" : ", ") + html_value(e);
    }
    return out;
  }
  return "";
}

const nlohmann::json& json_at(const nlohmann::json& o, const char* key) {
  static const nlohmann::json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}

std::string json_str(const nlohmann::json& o, const char* key) {
  const nlohmann::json& v = json_at(o, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                       const std::string& css_class) {
  std::string out = "<table class=\"sortable" + (css_class.empty() ? "" : " " + css_class) + "\"><thead><tr>";
  for (const auto& h : header) out += "<th>" + h + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& r : rows) {
    out += "<tr>";
    for (const auto& c : r) out += "<td>" + c + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string html_kv_table(const nlohmann::json& obj) {
  std::vector<std::vector<std::string>> rows;
  if (!obj.is_object()) return "";
  for (const auto& [k, v] : obj.items()) {
    if (v.is_object()) continue;
    if (v.is_array() && !v.empty() && (v.front().is_object() || v.front().is_array())) continue;
    if (v.is_string() && v.get<std::string>().empty()) continue;
    rows.push_back({html_escape(k), html_value(v)});
  }
  return html_table({"Item", "Value"}, rows, "kv");
}

namespace {

// Inline style: system fonts only (no web font), colours that print.
constexpr const char* kCss = R"CSS(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#c8cfdb}
nav{padding:8px 24px;background:#eef1f5;border-bottom:1px solid #d8dde6;font-size:13px}nav a{margin-right:14px;color:#2457a6}
main{padding:8px 24px 40px;max-width:1280px}section{margin:18px 0 26px}h2{font-size:18px;border-bottom:2px solid #d8dde6;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}table{border-collapse:collapse;margin:6px 0 12px;font-size:13px;background:#fff}
th,td{border:1px solid #d8dde6;padding:3px 7px;text-align:left;vertical-align:top}th{background:#eef1f5;cursor:pointer}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}code,pre,.src{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
pre{background:#f3f5f8;padding:6px 8px;overflow:auto;max-width:100%}
.cls{display:inline-block;padding:2px 9px;border-radius:10px;background:#2457a6;color:#fff;font-weight:600}
.ok{color:#17803d;font-weight:600}.bad{color:#b42318;font-weight:600}.warn{color:#a15c00;font-weight:600}
.keep{background:#17803d}.revert{background:#b42318}.inconclusive{background:#a15c00}
tr.hot td{background:#fff4e5}tr:target td{background:#ffe08a}.muted{color:#5b6472}.small{font-size:12px}
svg text{font-family:system-ui,"DejaVu Sans",sans-serif;font-size:11px}details{margin:4px 0}
)CSS";

// Interaction only: click a header to sort its table. Without it the page reads the same.
constexpr const char* kJs = R"JS(
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){
var t=th.closest('table'),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),d=th.dataset.d==='1'?-1:1;th.dataset.d=d===1?'1':'0';
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var a=x.cells[i]?x.cells[i].textContent:'',c=y.cells[i]?y.cells[i].textContent:'';
var p=parseFloat(a),q=parseFloat(c);return (!isNaN(p)&&!isNaN(q)?p-q:a.localeCompare(c))*d;});rows.forEach(function(r){b.appendChild(r);});});});
)JS";

}  // namespace

std::string render_html(const HtmlPage& page) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">"
      "<title>" +
      html_escape(page.title) + "</title><style>" + kCss + "</style></head><body>\n<header><h1>" +
      html_escape(page.title) + "</h1><p>" + html_escape(page.subtitle) + "</p></header>\n<nav>";
  for (const auto& s : page.sections) out += "<a href=\"#" + s.id + "\">" + html_escape(s.title) + "</a>";
  out += "</nav>\n<main>\n";
  for (const auto& s : page.sections)
    out += "<section id=\"" + s.id + "\"><h2>" + html_escape(s.title) + "</h2>\n" + s.body + "</section>\n";
  out += "</main>\n<script>" + std::string(kJs) + "</script>\n</body></html>\n";
  return out;
}

}  // namespace kprof
