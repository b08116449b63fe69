// report_diff_page (declared in report/html_pages.hpp): the page of `kprof compare` over Nsight
// Compute reports, from its comparison.json.
#include <fmt/format.h>

#include "report/html_pages.hpp"
#include "report/html_roofline.hpp"

namespace kprof {

namespace {

using nlohmann::json;

const json& at(const json& o, const char* key) { return json_at(o, key); }
std::string str(const json& o, const char* key) { return json_str(o, key); }

std::string base_name(const std::string& path) {
  size_t p = path.find_last_of('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

std::string sol(const json& side, const char* pct, const char* unit, const char* busy) {
  std::string u = str(side, unit);
  return html_num(at(side, pct)) + "%" +
         (u.empty() ? "" : " <span class=\"small\">(" + html_escape(u) + " " + html_num(at(side, busy)) + "%)</span>");
}

std::string list(const json& a) {
  std::string out;
  for (const auto& s : a) out += (out.empty() ? "" : "<br>") + html_value(s);
  return out.empty() ? "-" : out;
}

std::string pair_rows(const json& d) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : at(d, "pairs")) {
    const json& b = at(p, "before");
    const json& a = at(p, "after");
    std::string name = html_escape(str(p, "name"));
    if (str(p, "paired_by") == "launch order")
      name += " &rarr; " + html_escape(str(p, "after_name")) + " <i>(launch order)</i>";
    std::string ratio = at(p, "time_ratio").is_number() ? html_num(p["time_ratio"]) + " <span class=\"small\">(" +
                                                              html_num(p["speedup"]) + "x speed-up)</span>"
                                                        : "n/a";
    rows.push_back({name, html_num(at(b, "gpu_time_ns")) + " &rarr; " + html_num(at(a, "gpu_time_ns")), ratio,
                    "<span class=\"cls\">" + html_escape(str(b, "class")) + "</span> &rarr; <span class=\"cls\">" +
                        html_escape(str(a, "class")) + "</span>",
                    sol(b, "sm_sol_pct", "sm_unit", "sm_unit_busy_pct") + " &rarr; " +
                        sol(a, "sm_sol_pct", "sm_unit", "sm_unit_busy_pct"),
                    sol(b, "memory_sol_pct", "memory_unit", "memory_unit_busy_pct") + " &rarr; " +
                        sol(a, "memory_sol_pct", "memory_unit", "memory_unit_busy_pct"),
                    list(at(p, "findings_gone")), list(at(p, "findings_appeared"))});
  }
  std::string out = html_table({"Kernel", "GPU time (ns)", "Time ratio (1 sample)", "Class", "SM SOL (unit)",
                                "Memory SOL (unit)", "Findings gone", "Findings appeared"},
                               rows, "pairs");
  for (const auto& p : at(d, "pairs")) {
    std::vector<std::vector<std::string>> mr;
    for (const auto& m : at(p, "moved"))
      mr.push_back({html_escape(str(m, "label")), "<code>" + html_escape(str(m, "metric")) + "</code>",
                    html_num(at(m, "before")) + " " + html_escape(str(m, "unit")),
                    html_num(at(m, "after")) + " " + html_escape(str(m, "unit")),
                    fmt::format("{:+.1f}%", at(m, "change_pct").get<double>())});
    if (!mr.empty())
      out += "<details><summary>Metrics that moved most: " + html_escape(str(p, "name")) + "</summary>" +
             html_table({"Metric", "ncu name", "Before", "After", "Change"}, mr, "moved") + "</details>";
  }
  for (const auto& k : at(d, "only_before")) out += "<p class=\"warn\">Only before: " + html_value(k) + "</p>";
  for (const auto& k : at(d, "only_after")) out += "<p class=\"warn\">Only after: " + html_value(k) + "</p>";
  return out;
}

}  // namespace

std::string report_diff_page(const json& diff) {
  HtmlPage p;
  p.title = "kprof compare: " + std::to_string(at(diff, "reports").size()) + " Nsight Compute reports";
  p.subtitle = "baseline " + (at(diff, "reports").empty() ? std::string() : str(diff["reports"][0], "label"));
  std::string body = "<p class=\"warn\">One sample per side: " + html_escape(str(diff, "note")) + ".</p>";
  for (const auto& d : at(diff, "diffs"))
    body += "<h3>" + html_escape(base_name(str(d, "before"))) + " &rarr; " + html_escape(base_name(str(d, "after"))) +
            "</h3>" + pair_rows(d);
  p.sections.push_back({"pairs", "Kernels paired", body});
  std::vector<RoofMark> marks;
  std::vector<RoofCeiling> roofs;
  std::vector<std::vector<std::string>> reps;
  for (const auto& r : at(diff, "reports")) {
    for (const auto& k : at(r, "kernels"))
      if (at(k, "id") == at(r, "leading_id"))
        roofline_from_json(base_name(str(r, "label")), k, at(r, "ceilings"), marks, roofs);
    reps.push_back({html_escape(str(r, "label")), "<span class=\"cls\">" + html_escape(str(r, "class")) + "</span>",
                    html_escape(str(r, "leading_kernel")), std::to_string(at(r, "kernels").size())});
  }
  std::string roof = roofline_html(marks, roofs);
  if (!roof.empty()) p.sections.push_back({"roofline", "Roofline (leading kernel of each report)", roof});
  p.sections.push_back(
      {"reports", "Reports", html_table({"Report", "Class", "Leading kernel", "Launches"}, reps, "reports")});
  return render_html(p);
}

}  // namespace kprof
