#include "report/html_kernel.hpp"

#include <fmt/format.h>

namespace kprof {

namespace {

using nlohmann::json;

const json& at(const json& o, const char* key) { return json_at(o, key); }
std::string str(const json& o, const char* key) { return json_str(o, key); }

// A {value, unit} quantity of implementation_bound_json, or a bare number.
std::string qty(const json& q) {
  if (q.is_object() && q.contains("value")) return html_num(q["value"]) + " " + html_escape(str(q, "unit"));
  return html_num(q);
}

// The hot line (1-based rank) a finding or waste kind points at: the waste site of that kind,
// matched on the finding's id ("uncoalesced", "bank_conflicts", "local_memory", "divergence") or,
// for a stall finding, the hot line whose leading stall is named in the finding's evidence.
size_t rank_for_finding(const json& finding, const json& hot) {
  std::string id = str(finding, "id"), text = str(finding, "evidence") + " " + str(finding, "title");
  for (const auto& w : at(hot, "waste")) {
    std::string kind = str(w, "kind");
    int rank = at(w, "rank").is_number() ? at(w, "rank").get<int>() : 0;
    if (rank <= 0) continue;
    bool stall = kind.rfind("stall:", 0) == 0;
    if ((!stall && (id.find(kind) != std::string::npos || kind.find(id) != std::string::npos)) ||
        (stall && text.find(kind.substr(6)) != std::string::npos))
      return static_cast<size_t>(rank);
  }
  return 0;
}

std::string evidence_html(const json& v) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : at(v, "evidence"))
    rows.push_back({html_escape(str(e, "check")), "<code>" + html_escape(str(e, "metric")) + "</code>",
                    "<span class=\"n\">" + html_escape(str(e, "text")) + "</span>", html_escape(str(e, "threshold")),
                    at(e, "holds").is_boolean() && e["holds"].get<bool>() ? "<span class=\"ok\">yes</span>" : "no"});
  return rows.empty() ? "" : html_table({"Check", "Metric", "Value", "Threshold", "Holds"}, rows, "evidence");
}

std::string findings_html(const json& v, const json& hot, const std::string& prefix, const json& kid) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : at(v, "findings")) {
    size_t rank = rank_for_finding(f, hot);
    std::string where =
        rank ? fmt::format("<a href=\"#{}\">hot line {}</a>", hot_line_anchor(prefix, kid, rank), rank) : "-";
    rows.push_back({html_num(at(f, "rank")),
                    "<b>" + html_escape(str(f, "title")) + "</b><br><span class=\"small\">" +
                        html_escape(str(f, "evidence")) + "</span>",
                    html_num(at(f, "gain_pct")) + "%", "<code>" + html_escape(str(f, "formula")) + "</code>",
                    html_escape(str(f, "unit")), where, html_escape(str(f, "next_step"))});
  }
  if (rows.empty())
    return "<p class=\"muted\">No finding above the noise. " + html_escape(str(v, "findings_note")) + "</p>";
  return html_table({"#", "Finding", "Est. gain", "Formula", "Unit", "Where", "Next step"}, rows, "findings");
}

std::string stalls_cell(const json& line) {
  std::string out;
  for (const auto& s : at(line, "stalls"))
    out += (out.empty() ? "" : ", ") + html_escape(str(s, "reason")) + " " + html_num(at(s, "share_pct")) + "%";
  return out;
}

std::string waste_cell(const json& line) {
  std::string out;
  auto add = [&](const char* key, const char* what) {
    const json& x = at(line, key);
    if (x.is_number() && x.get<double>() > 0) out += (out.empty() ? "" : "; ") + html_num(x) + " " + what;
  };
  add("global_sectors_excess", "excess global sectors");
  add("shared_wavefronts_excess", "excess shared wavefronts");
  add("local_sectors", "local sectors");
  add("divergent_branch_targets", "divergent branch targets");
  return out.empty() ? "-" : out;
}

std::string sass_html(const json& line, const HtmlOptions& opt) {
  const json& ins = at(line, "instructions");
  if (!ins.is_array() || ins.empty() || !opt.include_source) return "";
  std::string rows;
  for (const auto& i : ins)
    rows += fmt::format("{:>6}%  {}{}\n", html_num(at(i, "share_pct")), html_escape(str(i, "sass")),
                        str(i, "top_stall").empty() ? "" : "   // " + html_escape(str(i, "top_stall")));
  return "<details><summary>SASS (" + std::to_string(ins.size()) + ")</summary><pre>" + rows + "</pre></details>";
}

std::string hot_lines_html(const json& hot, const HtmlOptions& opt, const std::string& prefix, const json& kid) {
  if (!hot.is_object()) return "<p class=\"muted\">No hot lines: the report holds no source counters.</p>";
  std::string out;
  if (!str(hot, "note").empty()) out += "<p class=\"muted\">" + html_escape(str(hot, "note")) + "</p>";
  std::vector<std::vector<std::string>> rows;
  size_t rank = 0;
  std::string tr;
  for (const auto& l : at(hot, "lines")) {
    ++rank;
    std::string src = opt.include_source ? "<span class=\"src\">" + html_escape(str(l, "text")) + "</span>"
                                         : "<span class=\"muted\">(source left out)</span>";
    tr += fmt::format(
        "<tr class=\"hot\" id=\"{}\"><td class=\"n\">{}</td><td>{}:{}</td><td>{}{}</td><td class=\"n\">{}%</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        hot_line_anchor(prefix, kid, rank), rank, html_escape(str(l, "file")), html_num(at(l, "line")), src,
        sass_html(l, opt), html_num(at(l, "share_pct")), stalls_cell(l), waste_cell(l));
  }
  if (!tr.empty())
    out +=
        "<table class=\"sortable hotlines\"><thead><tr><th>#</th><th>Line</th><th>Source</th><th>Samples</th>"
        "<th>Leading stalls</th><th>Memory waste</th></tr></thead><tbody>\n" +
        tr + "</tbody></table>\n";
  else if (at(hot, "top_instructions").is_array() && !hot["top_instructions"].empty()) {
    std::vector<std::vector<std::string>> ir;
    for (const auto& i : hot["top_instructions"])
      ir.push_back({fmt::format("0x{:x}", at(i, "pc").is_number() ? i["pc"].get<uint64_t>() : 0),
                    opt.include_source ? "<code>" + html_escape(str(i, "sass")) + "</code>" : "(left out)",
                    html_num(at(i, "share_pct")) + "%", html_escape(str(i, "top_stall"))});
    out += html_table({"PC", "SASS", "Samples", "Leading stall"}, ir, "hotinsts");
  }
  return out;
}

}  // namespace

std::string hot_line_anchor(const std::string& prefix, const json& kernel_id, size_t rank) {
  std::string id = kernel_id.is_number() ? std::to_string(kernel_id.get<long long>()) : "x";
  return prefix + "k" + id + "-line" + std::to_string(rank);
}

std::string bound_html(const json& call) {
  const json& b = at(call, "bound");
  const json& ib = at(call, "implementation_bound");
  const json& use = b.is_object() ? b : ib;
  if (!use.is_object()) return "";
  std::string out = "<p><b>Bound:</b> " + html_escape(str(use, "sentence")) + "</p>";
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : at(use, "terms"))
    rows.push_back({html_escape(str(t, "kind")), html_escape(str(t, "ceiling")), qty(at(t, "amount")),
                    qty(at(t, "rate")), t.contains("time") ? qty(at(t, "time")) : html_num(at(t, "time_s")) + " s",
                    "<code>" + html_escape(str(t, "arithmetic")) + "</code>"});
  out += html_table({"Term", "Ceiling", "Work", "Rate", "Time", "Arithmetic"}, rows, "bound");
  std::string pct = b.is_object() ? html_num(at(b, "pct_of_bound")) : qty(at(ib, "pct_of_bound"));
  std::string sp = b.is_object() ? html_num(at(b, "max_speedup")) : qty(at(ib, "max_speedup"));
  out += "<p>At <b>" + pct + (b.is_object() ? "%" : "") + "</b> of the bound; at most <b>" + sp +
         (b.is_object() ? "x" : "") + "</b> faster (" + (b.is_object() ? "the algorithm's least work" : "as executed") +
         ").</p>";
  return out;
}

std::string kernel_html(const json& k, const json& call, const HtmlOptions& opt, const std::string& prefix) {
  const json& v = at(k, "verdict");
  const json& kid = at(k, "id");
  std::string out = fmt::format(
      "<h3><span class=\"cls\">{}</span> {} <span class=\"muted small\">[ID {}] grid {} block {}, {} ns</span></h3>",
      html_escape(str(v, "class")), html_escape(str(k, "name")), html_num(kid), html_escape(str(k, "grid")),
      html_escape(str(k, "block")), html_num(at(k, "gpu_time_ns")));
  if (!str(v, "limiter").empty()) out += "<p><b>Limiter:</b> " + html_escape(str(v, "limiter")) + "</p>";
  out += "<p>" + html_escape(str(v, "summary")) + "</p>" + evidence_html(v);
  bool leads = at(call, "leading_id") == kid;
  if (leads) out += bound_html(call);
  out += "<h3>Findings</h3>" + findings_html(v, at(k, "hot_lines"), prefix, kid);
  out += "<h3>Hot lines</h3>" + hot_lines_html(at(k, "hot_lines"), opt, prefix, kid);
  return out;
}

}  // namespace kprof
