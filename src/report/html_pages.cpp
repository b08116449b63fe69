#include "report/html_pages.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "stages/ncu/metrics.hpp"
#include "report/html_kernel.hpp"
#include "report/html_roofline.hpp"
#include "report/html_versions.hpp"

namespace kprof {

namespace {

using nlohmann::json;

const json& at(const json& o, const char* key) { return json_at(o, key); }
std::string str(const json& o, const char* key) { return json_str(o, key); }

constexpr size_t kKernelsInDetail = 8;  // the rest are a row of the kernel table

// The kernels in detail: the call's leading one first, then by GPU time.
std::vector<const json*> kernels_by_time(const json& doc) {
  std::vector<const json*> ks;
  for (const auto& k : at(doc, "kernels")) ks.push_back(&k);
  json lead = at(at(doc, "call"), "leading_id");
  std::stable_sort(ks.begin(), ks.end(), [&](const json* a, const json* b) {
    bool la = at(*a, "id") == lead, lb = at(*b, "id") == lead;
    if (la != lb) return la;
    double ta = at(*a, "gpu_time_ns").is_number() ? (*a)["gpu_time_ns"].get<double>() : 0;
    double tb = at(*b, "gpu_time_ns").is_number() ? (*b)["gpu_time_ns"].get<double>() : 0;
    return ta > tb;
  });
  return ks;
}

std::string kernel_table(const std::vector<const json*>& ks) {
  std::vector<std::vector<std::string>> rows;
  for (const json* k : ks) {
    const json& m = at(*k, "metrics");
    auto metric = [&](const char* name) { return html_num(at(at(m, name), "value")); };
    rows.push_back({html_num(at(*k, "id")), html_escape(str(*k, "name")), html_num(at(*k, "gpu_time_ns")),
                    "<span class=\"cls\">" + html_escape(str(at(*k, "verdict"), "class")) + "</span>",
                    metric(metric::kSmSol), metric(metric::kMemSol)});
  }
  return html_table({"ID", "Kernel", "GPU time (ns)", "Class", "SM SOL %", "Memory SOL %"}, rows, "kernels");
}

std::string header_section(const json& header) {
  return header.is_object() && !header.empty() ? html_kv_table(header)
                                               : "<p class=\"muted\">No environment recorded.</p>";
}

std::string outputs_table(const json& correctness) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : at(correctness, "trials"))
    for (const auto& o : at(t, "outputs"))
      rows.push_back({html_escape(str(o, "name")), html_escape(str(o, "dtype")), html_num(at(o, "elements")),
                      html_num(at(o, "max_abs_delta")), html_num(at(o, "mean_abs_delta")),
                      html_num(at(o, "mismatches")), html_num(at(o, "never_written")), html_num(at(o, "atol")),
                      html_num(at(o, "rtol")),
                      at(o, "pass").is_boolean() && o["pass"].get<bool>() ? "<span class=\"ok\">PASS</span>"
                                                                          : "<span class=\"bad\">FAIL</span>",
                      html_escape(str(o, "reason"))});
  std::string out = "<p>Result: <span class=\"" + std::string(at(correctness, "pass") == true ? "ok" : "bad") + "\">" +
                    html_escape(str(correctness, "status")) + "</span></p>";
  const json& fault = at(correctness, "fault");
  if (fault.is_object())
    out += "<p class=\"bad\">Kernel fault (" + html_escape(str(fault, "kind")) +
           "): " + html_escape(str(fault, "message")) + "</p><p>What to do: " + html_escape(str(fault, "hint")) +
           "</p>";
  out += html_table({"Output", "dtype", "Elements", "Max |delta|", "Mean |delta|", "Mismatches", "Never written",
                     "atol", "rtol", "Status", "Reason"},
                    rows, "outputs");
  for (const auto& w : at(correctness, "warnings")) out += "<p class=\"warn\">" + html_value(w) + "</p>";
  return out;
}

}  // namespace

std::string ncu_page(const std::string& title, const json& doc, const json& correctness, const HtmlOptions& opt) {
  HtmlPage p;
  p.title = title;
  const json& call = at(doc, "call");
  p.subtitle = "Class of the call: " + str(call, "class") + "; led by " + str(call, "leading_kernel");
  auto ks = kernels_by_time(doc);
  std::string verdicts = kernel_table(ks);
  for (size_t i = 0; i < ks.size() && i < kKernelsInDetail; ++i) verdicts += kernel_html(*ks[i], call, opt);
  if (ks.size() > kKernelsInDetail)
    verdicts +=
        fmt::format("<p class=\"muted\">{} more kernels with less GPU time: in the table above and in the JSON.</p>",
                    ks.size() - kKernelsInDetail);
  if (ks.empty()) verdicts = "<p class=\"bad\">No kernel classified: " + html_escape(str(doc, "failure")) + "</p>";
  p.sections.push_back({"verdict", "Verdict", verdicts});
  std::vector<RoofMark> marks;
  std::vector<RoofCeiling> roofs;
  for (const json* k : ks)
    roofline_from_json(fmt::format("{} [{}]", str(*k, "name").substr(0, 40), html_num(at(*k, "id"))), *k,
                       at(call, "ceilings"), marks, roofs);
  std::string roof = roofline_html(marks, roofs);
  p.sections.push_back(
      {"roofline", "Roofline", roof.empty() ? "<p class=\"muted\">No kernel with FLOPs and DRAM bytes.</p>" : roof});
  if (correctness.is_object()) p.sections.push_back({"correctness", "Correctness", outputs_table(correctness)});
  if (at(doc, "timing").is_object()) p.sections.push_back({"timing", "Timing", html_kv_table(doc["timing"])});
  json env = at(doc, "header");
  if (!at(doc, "source").is_null()) env["Report"] = doc["source"];
  p.sections.push_back({"environment", "Environment", header_section(env)});
  return render_html(p);
}

std::string run_page(const json& c, const std::vector<std::pair<std::string, json>>& profiles, const HtmlOptions& opt) {
  HtmlPage p;
  p.title = "kprof run: " + std::to_string(at(c, "versions").size()) + " versions";
  std::string fastest;
  for (const auto& v : at(c, "versions"))
    if (at(at(v, "comparison"), "fastest") == true) fastest = str(v, "name");
  p.subtitle = fastest.empty() ? "No correct version timed" : "Fastest correct version: " + fastest;
  p.sections.push_back({"versions", "Versions", versions_table_html(c)});
  std::string s = samples_html(c);
  if (!s.empty()) p.sections.push_back({"samples", "Timing samples", s});
  if (at(c, "decision").is_object()) p.sections.push_back({"decision", "Decision", decision_html(c["decision"])});
  std::vector<RoofMark> marks;
  std::vector<RoofCeiling> roofs;
  std::string detail;
  for (size_t i = 0; i < profiles.size(); ++i) {
    const auto& [name, doc] = profiles[i];
    const json& call = at(doc, "call");
    for (const auto& k : at(doc, "kernels"))
      if (at(k, "id") == at(call, "leading_id")) {
        roofline_from_json(name, k, at(call, "ceilings"), marks, roofs);
        detail += "<h3>" + html_escape(name) + "</h3>" + kernel_html(k, call, opt, "v" + std::to_string(i) + "-");
      }
  }
  std::string roof = roofline_html(marks, roofs);
  if (!roof.empty()) p.sections.push_back({"roofline", "Roofline", roof});
  if (!detail.empty()) p.sections.push_back({"kernels", "Leading kernel per version", detail});
  p.sections.push_back({"environment", "Environment", header_section(at(c, "header"))});
  return render_html(p);
}

std::string compare_page(const json& cmp) {
  HtmlPage p;
  p.title = "kprof compare";
  std::string inputs;
  for (const auto& in : at(cmp, "inputs"))
    inputs += (inputs.empty() ? "" : " vs ") + str(in, "label") + " = " + str(in, "path");
  p.subtitle = inputs;
  // The runs of each version as rows of one version table (name "version @ input").
  json flat = {{"time_basis", "as each input recorded it"}, {"versions", json::array()}};
  json decision = {{"rule", "cross-run: the interval of the time ratio against the noise floor"},
                   {"threshold_pct", at(cmp, "noise_floor_pct")},
                   {"versions", json::array()}};
  for (const auto& v : at(cmp, "versions"))
    for (const auto& run : at(v, "runs")) {
      if (!at(run, "row").is_object()) continue;
      json row = run["row"];
      row["name"] = str(v, "name") + " @ " + str(run, "input");
      row["comparison"] = at(run, "comparison");
      flat["versions"].push_back(row);
      if (at(run, "decision").is_object()) {
        json d = run["decision"];
        d["name"] = row["name"];
        decision["versions"].push_back(d);
      }
    }
  p.sections.push_back({"versions", "Versions", versions_table_html(flat)});
  std::string s = samples_html(flat);
  if (!s.empty()) p.sections.push_back({"samples", "Timing samples", s});
  if (!decision["versions"].empty()) p.sections.push_back({"decision", "Decision", decision_html(decision)});
  const json& gate = at(cmp, "gate");
  std::string g =
      gate.is_object()
          ? std::string("<p>--fail-if-slower ") + html_num(at(gate, "fail_if_slower_pct")) + "%: " +
                (gate["passed"] == true ? "<span class=\"ok\">passed</span>" : "<span class=\"bad\">failed</span>") +
                "</p>"
          : "<p class=\"muted\">No gate (--fail-if-slower not given).</p>";
  for (const auto& w : at(cmp, "warnings")) g += "<p class=\"warn\">" + html_value(w) + "</p>";
  p.sections.push_back({"gate", "Gate and warnings", g});
  std::string env;
  for (const auto& in : at(cmp, "inputs"))
    env += "<h3>" + html_escape(str(in, "label")) + ": " + html_escape(str(in, "path")) + "</h3>" +
           header_section(at(in, "header"));
  p.sections.push_back({"environment", "Environment", env});
  return render_html(p);
}

std::string env_page(const json& env) {
  HtmlPage p;
  p.title = std::string("kprof env: ") + (at(env, "ready") == true ? "READY" : "NOT READY");
  p.subtitle = str(env, "host") + ", " + str(env, "date");
  std::vector<std::vector<std::string>> rows;
  for (const auto& it : at(env, "items")) {
    std::string st = str(it, "status");
    rows.push_back({html_escape(str(it, "name")), html_value(at(it, "required")),
                    "<span class=\"" +
                        std::string(st == "ok"     ? "ok"
                                    : st == "warn" ? "warn"
                                                   : "bad") +
                        "\">" + html_escape(st) + "</span>",
                    html_escape(str(it, "value")), html_escape(str(it, "why")), html_escape(str(it, "fix"))});
  }
  p.sections.push_back({"readiness", "Readiness",
                        html_table({"Item", "Required", "Status", "Found", "Why", "What to do"}, rows, "items")});
  std::string gpu = html_kv_table(at(env, "gpu"));
  if (at(at(env, "gpu"), "clocks_mhz").is_object())
    gpu += "<h3>Clocks (MHz)</h3>" + html_kv_table(env["gpu"]["clocks_mhz"]);
  p.sections.push_back({"gpu", "GPU, driver and clocks", gpu});
  std::string tools;
  for (const auto& [name, t] : at(env, "tools").items())
    tools += "<h3>" + html_escape(name) + "</h3>" + html_kv_table(t);
  tools += "<h3>CUPTI</h3>" + html_kv_table(at(env, "cupti"));
  p.sections.push_back({"tools", "Tools (nvcc, ncu, compute-sanitizer, CUPTI)", tools});
  return render_html(p);
}

std::string check_page(const json& correctness) {
  HtmlPage p;
  p.title = "kprof check: " + str(correctness, "status");
  p.subtitle = str(at(correctness, "header"), "Kernel");
  p.sections.push_back({"correctness", "Correctness", outputs_table(correctness)});
  p.sections.push_back({"environment", "Environment", header_section(at(correctness, "header"))});
  return render_html(p);
}

}  // namespace kprof
