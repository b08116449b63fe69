#include "report/html_versions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.hpp"

namespace kprof {

namespace {

using nlohmann::json;

const json& at(const json& o, const char* key) { return json_at(o, key); }
std::string str(const json& o, const char* key) { return json_str(o, key); }

std::vector<double> samples_of(const json& v) {
  std::vector<double> out;
  for (const auto& s : at(v, "time_samples_ms"))
    if (s.is_number()) out.push_back(s.get<double>());
  return out;
}

std::string correct_cell(const json& v) {
  if (str(v, "status") == "not_run") return "<span class=\"muted\">not run</span>";
  return at(v, "correct").is_boolean() && v["correct"].get<bool>() ? "<span class=\"ok\">PASS</span>"
                                                                   : "<span class=\"bad\">FAIL</span>";
}

}  // namespace

std::string versions_table_html(const json& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& v : at(c, "versions")) {
    const json& cmp = at(v, "comparison");
    std::string name = html_escape(str(v, "name"));
    if (at(cmp, "fastest").is_boolean() && cmp["fastest"].get<bool>()) name += " <b>(fastest)</b>";
    const json& top = at(v, "top_finding");
    rows.push_back(
        {name, correct_cell(v), html_num(at(v, "time_ms")) + " ms", "&plusmn; " + html_num(at(v, "spread_ms")),
         at(cmp, "speedup_vs_first").is_number() ? html_num(cmp["speedup_vs_first"]) + "x" : "n/a",
         html_escape(str(cmp, "vs_first")), html_escape(str(v, "class")),
         at(v, "pct_of_bound").is_number() ? html_num(v["pct_of_bound"]) + "%" : "n/a",
         top.is_object() ? html_escape(str(top, "title")) + " (" + html_num(at(top, "gain_pct")) + "%)" : "-",
         html_escape(str(v, "status_reason"))});
  }
  return "<p class=\"muted\">Time compared: " + html_escape(str(c, "time_basis")) + "</p>" +
         html_table({"Version", "Correctness", "Median", "Std", "Speedup vs first", "vs first", "Class", "% of bound",
                     "Top finding", "Note"},
                    rows, "versions");
}

std::string samples_html(const json& c) {
  double lo = 1e300, hi = 0;
  size_t n_rows = 0;
  for (const auto& v : at(c, "versions")) {
    auto s = samples_of(v);
    if (s.empty()) continue;
    ++n_rows;
    lo = std::min(lo, *std::min_element(s.begin(), s.end()));
    hi = std::max(hi, *std::max_element(s.begin(), s.end()));
  }
  if (n_rows == 0) return "";
  // A log axis when the versions span more than 4x (a progression), else linear.
  bool logx = hi / lo > 4;
  auto fx = [&](double v) {
    double t =
        logx ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (hi > lo ? (v - lo) / (hi - lo) : 0.5);
    return 150 + t * 460;
  };
  const double row_h = 26;
  double height = 40 + row_h * n_rows;
  std::string svg = fmt::format(
      "<svg class=\"samples\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 {0}\" width=\"640\" "
      "height=\"{0}\" "
      "role=\"img\" aria-label=\"timing samples\">",
      height);
  std::vector<std::vector<std::string>> rows;
  size_t r = 0;
  for (const auto& v : at(c, "versions")) {
    auto s = samples_of(v);
    if (s.empty()) continue;
    double y = 20 + row_h * r++ + row_h / 2;
    svg += fmt::format(
        "<text x=\"4\" y=\"{:.1f}\">{}</text><line x1=\"150\" x2=\"610\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#e3e7ee\"/>",
        y + 4, html_escape(str(v, "name")), y, y);
    for (size_t i = 0; i < s.size(); ++i) {
      double jitter = ((i * 7919) % 11) - 5.0;  // deterministic spread so equal samples stay visible
      svg += fmt::format(
          "<circle class=\"sample\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#2457a6\" fill-opacity=\"0.5\"/>",
          fx(s[i]), y + jitter);
    }
    std::vector<double> sorted = s;
    std::sort(sorted.begin(), sorted.end());
    double med = at(v, "time_ms").is_number() ? v["time_ms"].get<double>() : sorted[sorted.size() / 2];
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#d1495b\" "
        "stroke-width=\"2\"><title>median {3} ms</title></line>",
        fx(med), y - 10, y + 10, html_num(med));
    rows.push_back({html_escape(str(v, "name")), std::to_string(s.size()), html_num(sorted.front()), html_num(med),
                    html_num(sorted.back())});
  }
  svg += fmt::format(
      "<text x=\"150\" y=\"{0:.0f}\">{1} ms</text><text x=\"610\" y=\"{0:.0f}\" text-anchor=\"end\">{2} "
      "ms{3}</text></svg>\n",
      height - 4, html_num(lo), html_num(hi), logx ? " (log axis)" : "");
  return svg + "<p class=\"small muted\">Every timed sample is a dot; the red bar is the median.</p>" +
         html_table({"Version", "Samples", "Min (ms)", "Median (ms)", "Max (ms)"}, rows, "sample-stats");
}

std::string decision_html(const json& d) {
  if (!d.is_object()) return "";
  if (at(d, "not_run").is_string()) return "<p>No decision: " + html_escape(str(d, "not_run")) + "</p>";
  double thr = at(d, "threshold_pct").is_number() ? d["threshold_pct"].get<double>() / 100 : 0;
  double aa = at(d, "aa_floor_pct").is_number() ? d["aa_floor_pct"].get<double>() / 100 : 0;
  std::string out = "<p><b>Rule:</b> " + html_escape(str(d, "rule")) + "</p><p>Baseline <b>" +
                    html_escape(str(d, "baseline")) + "</b>; threshold " + html_num(at(d, "threshold_pct")) +
                    "% (--min-gain); A/A floor " + html_num(at(d, "aa_floor_pct")) + "%, A/A check " +
                    html_escape(str(d, "aa_check")) + "; " + html_num(at(d, "rounds_used")) + " of " +
                    html_num(at(d, "rounds")) + " rounds used, " + html_num(at(d, "rounds_discarded")) +
                    " discarded; stopped by " + html_escape(str(d, "stopped_by")) + ".</p>";
  // The interval chart: ratio (candidate / baseline time) on a linear axis around 1.
  double span = std::max(0.02, thr * 3);
  for (const auto& v : at(d, "versions"))
    for (const auto& e : at(v, "interval"))
      if (e.is_number()) span = std::max(span, std::abs(e.get<double>() - 1) * 1.2);
  auto fx = [&](double r) { return 330 + (r - 1) / span * 250; };
  size_t n = at(d, "versions").size();
  double height = 46 + 26 * n;
  std::string svg = fmt::format(
      "<svg class=\"decision\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 {0}\" width=\"640\" "
      "height=\"{0}\" "
      "role=\"img\" aria-label=\"decision intervals\">",
      height);
  svg += fmt::format(
      "<rect class=\"threshold\" x=\"{:.1f}\" y=\"14\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"#fff4e5\"><title>threshold &#177;{}%</title></rect>",
      fx(1 - thr), fx(1 + thr) - fx(1 - thr), height - 34, html_num(100 * thr));
  if (aa > 0)
    svg += fmt::format(
        "<rect class=\"aa-floor\" x=\"{:.1f}\" y=\"14\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#e3e7ee\"><title>A/A "
        "floor &#177;{}%</title></rect>",
        fx(1 - aa), fx(1 + aa) - fx(1 - aa), height - 34, html_num(100 * aa));
  svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"10\" y2=\"{1:.1f}\" stroke=\"#1d2330\"/>", fx(1),
                     height - 18);
  std::vector<std::vector<std::string>> rows;
  size_t i = 0;
  for (const auto& v : at(d, "versions")) {
    double y = 30 + 26 * i++;
    std::string dec = str(v, "decision");
    const char* col = dec == "keep" ? "#17803d" : dec == "revert" ? "#b42318" : "#a15c00";
    svg +=
        fmt::format("<text x=\"4\" y=\"{:.1f}\">{}: {}</text>", y + 4, html_escape(str(v, "name")), html_escape(dec));
    const json& iv = at(v, "interval");
    if (iv.is_array() && iv.size() == 2 && iv[0].is_number() && iv[1].is_number())
      svg += fmt::format(
          "<line class=\"interval\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"4\"/>",
          fx(iv[0].get<double>()), fx(iv[1].get<double>()), y, y, col);
    if (at(v, "ratio").is_number())
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", fx(v["ratio"].get<double>()), y,
                         col);
    rows.push_back({html_escape(str(v, "name")),
                    "<span class=\"cls " + html_escape(dec) + "\">" + html_escape(dec) + "</span>",
                    html_num(at(v, "ratio")),
                    iv.is_array() && iv.size() == 2 ? "[" + html_num(iv[0]) + ", " + html_num(iv[1]) + "]" : "n/a",
                    html_num(at(v, "confidence")), html_escape(str(v, "reason"))});
  }
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">1.00 (same time)</text>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text><text x=\"{:.1f}\" y=\"{:.1f}\" "
      "text-anchor=\"middle\">{}</text></svg>\n",
      fx(1), height - 4, fx(1 - span), height - 4, html_num(1 - span), fx(1 + span), height - 4, html_num(1 + span));
  out += svg +
         "<p class=\"small muted\">Ratio = candidate time / baseline time, with its interval; the grey band is the A/A "
         "floor, the pale band the threshold.</p>";
  out += html_table({"Version", "Decision", "Ratio", "Interval", "Confidence", "Reason"}, rows, "decisions");
  for (const auto& n : at(d, "notes")) out += "<p class=\"small\">Note: " + html_value(n) + "</p>";
  return out;
}

}  // namespace kprof
