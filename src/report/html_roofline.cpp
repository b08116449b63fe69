#include "report/html_roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/html.hpp"

namespace kprof {

namespace {

double num_or(const nlohmann::json& o, const char* key, double dflt = 0) {
  if (!o.is_object()) return dflt;
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : dflt;
}

void add_roof(std::vector<RoofCeiling>& roofs, RoofCeiling c) {
  if (c.per_s <= 0) return;
  for (const auto& r : roofs)
    if (r.name == c.name) return;
  roofs.push_back(std::move(c));
}

// The chart's frame: 640 x 380, plot area inset; log10 axes.
struct Frame {
  double x0, x1, y0, y1;  // log10 ranges
  static constexpr double L = 70, R = 620, T = 20, B = 330;
  double px(double v) const { return L + (std::log10(v) - x0) / (x1 - x0) * (R - L); }
  double py(double v) const { return B - (std::log10(v) - y0) / (y1 - y0) * (B - T); }
};

const char* kColors[] = {"#2457a6", "#d1495b", "#17803d", "#a15c00", "#7b3fa0", "#00798c", "#5b6472", "#c05299"};

}  // namespace

void roofline_from_json(const std::string& label, const nlohmann::json& kernel, const nlohmann::json& ceilings,
                        std::vector<RoofMark>& marks, std::vector<RoofCeiling>& roofs) {
  const nlohmann::json& r = kernel.is_object() && kernel.contains("roofline") ? kernel["roofline"] : nlohmann::json();
  double ai = num_or(r, "flop_per_byte"), fs = num_or(r, "flop_per_s");
  if (ai > 0 && fs > 0) marks.push_back({label, ai, fs});
  if (ceilings.is_object()) {
    if (ceilings.contains("dram") && ceilings["dram"].is_object())
      add_roof(roofs, {"DRAM (theoretical)", num_or(ceilings["dram"], "per_s"), true, false});
    if (ceilings.contains("dram_achievable") && ceilings["dram_achievable"].is_object())
      add_roof(roofs, {"DRAM (achievable, measured)", num_or(ceilings["dram_achievable"], "per_s"), true, true});
    if (ceilings.contains("compute") && ceilings["compute"].is_array())
      for (const auto& c : ceilings["compute"])
        add_roof(roofs, {c.value("name", std::string("compute")) + " peak", num_or(c, "per_s"), false, false});
  }
  double peak_bw = num_or(r, "peak_dram_bytes_per_s"), pct = num_or(r, "fp32_peak_pct");
  bool have_bw = std::any_of(roofs.begin(), roofs.end(), [](const RoofCeiling& c) { return c.bandwidth; });
  bool have_fl = std::any_of(roofs.begin(), roofs.end(), [](const RoofCeiling& c) { return !c.bandwidth; });
  if (!have_bw && peak_bw > 0) add_roof(roofs, {"DRAM (ncu peak)", peak_bw, true, false});
  double fp32 = num_or(r, "fp32_flop");
  if (!have_fl && pct > 0 && fs > 0 && fp32 > 0) {
    // fp32_peak_pct is the FP32 work rate over the FP32 peak (stages/analysis roofline_point).
    double total = num_or(r, "total_flop", fp32);
    add_roof(roofs, {"FP32 (ncu peak)", fs * (fp32 / total) / (pct / 100.0), false, false});
  }
}

std::string roofline_html(const std::vector<RoofMark>& marks, const std::vector<RoofCeiling>& roofs) {
  if (marks.empty()) return "";
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& m : marks) {
    xmin = std::min(xmin, m.flop_per_byte), xmax = std::max(xmax, m.flop_per_byte);
    ymin = std::min(ymin, m.flop_per_s), ymax = std::max(ymax, m.flop_per_s);
  }
  for (const auto& c : roofs)
    if (!c.bandwidth) ymax = std::max(ymax, c.per_s);
  Frame f{std::floor(std::log10(xmin)) - 1, std::ceil(std::log10(xmax)) + 1, std::floor(std::log10(ymin)) - 1,
          std::ceil(std::log10(ymax)) + 0.3};
  std::string svg = fmt::format(
      "<svg class=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 380\" width=\"640\" "
      "height=\"380\" role=\"img\" aria-label=\"roofline\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
      "fill=\"#fff\" stroke=\"#8a93a3\"/>",
      Frame::L, Frame::T, Frame::R - Frame::L, Frame::B - Frame::T);
  for (int e = static_cast<int>(f.x0); e <= static_cast<int>(f.x1); ++e)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"346\" text-anchor=\"middle\">1e{}</text>", f.px(std::pow(10.0, e)), e);
  for (int e = static_cast<int>(std::ceil(f.y0)); e <= static_cast<int>(f.y1); ++e)
    svg += fmt::format("<text x=\"64\" y=\"{:.1f}\" text-anchor=\"end\">1e{}</text>", f.py(std::pow(10.0, e)) + 4, e);
  svg +=
      "<text x=\"345\" y=\"366\" text-anchor=\"middle\">arithmetic intensity (FLOP per DRAM byte)</text>"
      "<text x=\"14\" y=\"175\" transform=\"rotate(-90 14 175)\" text-anchor=\"middle\">FLOP/s</text>";
  // Ceilings: a slope (bandwidth x intensity) capped by the highest compute roof, and flat roofs.
  double top = 0;
  for (const auto& c : roofs)
    if (!c.bandwidth) top = std::max(top, c.per_s);
  double xa = std::pow(10.0, f.x0), xb = std::pow(10.0, f.x1);
  int label_row = 0;
  for (const auto& c : roofs) {
    std::string style =
        c.achievable ? "stroke=\"#17803d\" stroke-width=\"2\"" : "stroke=\"#5b6472\" stroke-dasharray=\"5 3\"";
    if (c.bandwidth) {
      double xe = top > 0 ? std::min(xb, top / c.per_s) : xb;
      double ys = std::max(c.per_s * xa, std::pow(10.0, f.y0)), xs = ys / c.per_s;
      svg += fmt::format("<line class=\"ceiling\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" {}/>",
                         f.px(xs), f.py(ys), f.px(xe), f.py(c.per_s * xe), style);
    } else {
      svg += fmt::format("<line class=\"ceiling\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" {}/>", Frame::L,
                         f.py(c.per_s), Frame::R, f.py(c.per_s), style);
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}{}: {}/s</text>", Frame::L + 8,
                       Frame::T + 14 + 13 * label_row++, c.achievable ? "#17803d" : "#3b4250",
                       c.bandwidth ? "&#9585; " : "&#9472; ", html_escape(c.name),
                       html_num(c.per_s) + (c.bandwidth ? " B" : " FLOP"));
  }
  for (size_t i = 0; i < marks.size(); ++i) {
    const auto& m = marks[i];
    const char* col = kColors[i % (sizeof kColors / sizeof *kColors)];
    svg += fmt::format(
        "<g class=\"mark\"><title>{}: {} FLOP/byte, {} FLOP/s</title><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" "
        "fill=\"{}\" stroke=\"#fff\"/><text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">{}</text></g>",
        html_escape(m.label), html_num(m.flop_per_byte), html_num(m.flop_per_s), f.px(m.flop_per_byte),
        f.py(m.flop_per_s), col, f.px(m.flop_per_byte) + 9, f.py(m.flop_per_s) + 4, col, html_escape(m.label));
  }
  svg += "</svg>\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : marks) {
    std::string pct;
    for (const auto& c : roofs) {
      double roof = c.bandwidth ? c.per_s * m.flop_per_byte : c.per_s;
      if (c.achievable || (!c.bandwidth && c.per_s == top))
        pct += (pct.empty() ? "" : "; ") + html_escape(c.name) + ": " + html_num(100 * m.flop_per_s / roof) + "%";
    }
    rows.push_back({html_escape(m.label), html_num(m.flop_per_byte), html_num(m.flop_per_s), pct});
  }
  std::vector<std::vector<std::string>> crow;
  for (const auto& c : roofs)
    crow.push_back({html_escape(c.name) + (c.achievable ? " <b>(achievable)</b>" : ""),
                    c.bandwidth ? "bandwidth" : "compute", html_num(c.per_s) + (c.bandwidth ? " B/s" : " FLOP/s")});
  return svg + html_table({"Mark", "FLOP/byte", "FLOP/s", "Of the ceiling"}, rows, "roof-points") +
         (crow.empty() ? "" : html_table({"Ceiling", "Kind", "Rate"}, crow, "roof-ceilings"));
}

}  // namespace kprof
