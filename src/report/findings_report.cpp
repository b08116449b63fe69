#include "report/findings_report.hpp"

#include <fmt/format.h>

#include "stages/analysis/findings.hpp"
#include "stages/analysis/format.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {

using nlohmann::json;

std::string heading(int level, const std::string& text) {
  return std::string(static_cast<size_t>(level), '#') + " " + text + "\n\n";
}

std::string ns(double s) { return format_value(s * 1e9, "ns"); }

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json rate_json(const std::optional<Rate>& r) {
  if (!r) return nullptr;
  return {{"per_s", r->per_s}, {"how", r->how}};
}

std::string gain_cell(const Finding& f) {
  std::string s = format_value(f.gain_pct, "%");
  if (f.capped_pct) s = format_value(*f.capped_pct, "%") + " (capped; " + s + " uncapped)";
  if (f.scope == "local") s += ", local";
  return s;
}

std::string unit_cell(const Finding& f) {
  if (f.unit.empty()) return "- (latency)";
  return f.unit_pct ? fmt::format("{} ({})", f.unit, format_value(*f.unit_pct, "%")) : f.unit;
}

std::string ncu_cell(const Finding& f) {
  if (f.ncu.empty()) return "-";
  std::string s;
  for (const auto& r : f.ncu) {
    s += (s.empty() ? "" : "; ") + r.rule + (r.title.empty() ? "" : " \"" + r.title + "\"");
    if (r.speedup_pct) s += fmt::format(" {} ({})", format_value(*r.speedup_pct, "%"), r.speedup_type);
  }
  if (!f.agreement.empty()) s += ": " + f.agreement;
  return s;
}

}  // namespace

std::string bound_markdown(const CallVerdict& call, int level) {
  std::string out = heading(level, "Time bound and headroom");
  if (!call.bound) {
    return out +
           "Not known: an ncu report alone does not record the kernel's buffers, so the least work of the "
           "call is unknown (`kprof profile` and `kprof run` compute it from the buffers and ref.py's "
           "`flops` / `bytes_moved`).\n\n";
  }
  const TimeBound& b = *call.bound;
  out += fmt::format("Measured: **{}** ({}).\n\n", ns(b.measured_s), b.measured_how);
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : b.terms)
    rows.push_back({t.kind, t.ceiling, t.arithmetic, format_value(100.0 * t.time_s / b.measured_s, "%")});
  if (!rows.empty())
    out += markdown_table({"Term", "Ceiling", "Work / rate = time", "Share of the measured time"}, rows) + "\n";
  out += "**" + bound_sentence(b) + "**";
  out += b.bound_s ? fmt::format(" (binding: {}).\n\n", b.binding) : ".\n\n";
  if (call.ceilings) {
    const Ceilings& c = *call.ceilings;
    if (c.dram) out += "- DRAM theoretical: " + format_si(c.dram->per_s, "B/s") + " = " + c.dram->how + ".\n";
    if (c.dram_achievable)
      out +=
          "- DRAM achievable: " + format_si(c.dram_achievable->per_s, "B/s") + " (" + c.dram_achievable->how + ").\n";
    if (c.flop_peak)
      out += "- " + c.precision +
             " peak (the precision the kernel's FLOPs ran in): " + format_si(c.flop_peak->per_s, "FLOP/s") + " = " +
             c.flop_peak->how + ".\n";
  }
  for (const auto& n : b.notes) out += "- Note: " + n + ".\n";
  out +=
      "\n\"% of bound\" = bound / measured time; \"at most Y x faster\" = measured / bound, with the memory term "
      "at the achievable bandwidth (docs/CLASSIFICATION.md, \"Time bound and headroom\").\n\n";
  return out;
}

std::string findings_markdown(const Verdict& v, int level) {
  std::string out = heading(level, "Findings, ranked by estimated gain");
  if (v.efficiency)
    out += fmt::format(
        "Implementation efficiency (how busy the busiest unit is on the work this kernel executed, "
        "wasted work included): **{} at {}** ({}).\n\n",
        v.efficiency->unit, format_value(v.efficiency->pct, "%"), v.efficiency->all);
  if (!v.units.empty()) {
    std::string list;
    for (size_t i = 0; i < v.units.size() && i < 6; ++i)
      list += fmt::format("{}{} {}", i ? ", " : "", v.units[i].name, format_value(v.units[i].pct, "%"));
    out += fmt::format("Limiter: **{}** ({} busy; >= {} is busy). Units, busiest first: {}.\n\n", v.units[0].name,
                       format_value(v.units[0].pct, "%"), format_value(threshold::kBusyUnitPct, "%"), list);
  }
  if (v.findings.empty()) {
    out += "No secondary signal fires, so there is no finding to rank.\n\n";
  } else {
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < v.findings.size(); ++i) {
      const Finding& f = v.findings[i];
      rows.push_back(
          {std::to_string(i + 1), f.title, unit_cell(f), gain_cell(f), f.formula, ncu_cell(f), f.section, f.next_step});
    }
    out += markdown_table(
        {"#", "Finding", "Unit (busy)", "Est. gain", "Formula", "ncu's own estimate", "ncu section", "Next step"},
        rows);
    out += "\n" + v.findings_note +
           " Formulas and their ncu anchors: docs/CLASSIFICATION.md, \"Findings from the limiter\".\n\n";
  }
  if (!v.negligible.empty()) out += "Not ranked, " + negligible_line(v) + ".\n\n";
  for (const auto& n : v.not_measured) out += "- " + not_measured_line(n) + "\n";
  if (!v.not_measured.empty()) out += "\n";
  out += heading(level + 1, "Nsight Compute's own rule results");
  if (v.ncu_rules.empty()) return out + "Not shown: " + v.ncu_rules_note + ".\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : v.ncu_rules) {
    if (!r.speedup_pct) continue;
    bool only = false;
    for (const auto& o : v.ncu_only)
      if (o.rule == r.rule && o.title == r.title) only = true;
    rows.push_back({r.rule, r.title.empty() ? r.name : r.title, format_value(*r.speedup_pct, "%"), r.speedup_type,
                    r.section, only ? "no kprof finding" : "beside a kprof finding above"});
  }
  out += rows.empty() ? std::string("The report holds rule messages but no speedup estimate.\n")
                      : markdown_table({"Rule", "Title", "Est. speedup", "Type", "Section", "kprof"}, rows);
  return out +
         "\n\"global\": a share of the kernel's time; \"local\": a share of one unit's time (ncu's "
         "SpeedupType).\n\n";
}

std::string clock_check_markdown(const CallVerdict& call, int level) {
  if (!call.clocks) return "";
  return heading(level, "kprof's timing against ncu's") + call.clocks->text + "\n\n";
}

json bound_json(const TimeBound& b) {
  json terms = json::array();
  for (const auto& t : b.terms)
    terms.push_back({{"kind", t.kind},
                     {"ceiling", t.ceiling},
                     {"amount", t.amount},
                     {"rate", t.rate},
                     {"time_s", t.time_s},
                     {"arithmetic", t.arithmetic}});
  return {{"measured_s", b.measured_s},
          {"measured_how", b.measured_how},
          {"terms", terms},
          {"bound_s", opt(b.bound_s)},
          {"theoretical_s", opt(b.theoretical_s)},
          {"binding", b.binding},
          {"pct_of_bound", opt(b.pct_of_bound)},
          {"pct_of_theoretical", opt(b.pct_of_theoretical)},
          {"max_speedup", opt(b.max_speedup)},
          {"floor_s", opt(b.floor_s)},
          {"floor_how", b.floor_how},
          {"floor_binds", b.floor_binds},
          {"notes", b.notes},
          {"sentence", bound_sentence(b)}};
}

json ceilings_json(const Ceilings& c) {
  json compute = json::array();
  for (const auto& [name, r] : c.compute) compute.push_back({{"name", name}, {"per_s", r.per_s}, {"how", r.how}});
  // The DRAM ceiling the bounds used: kprof's measured (or committed) achievable one, else ncu's peak.
  json used = c.dram_achievable
                  ? json{{"kind", "achievable"}, {"per_s", c.dram_achievable->per_s}, {"how", c.dram_achievable->how}}
              : c.dram ? json{{"kind", "theoretical"}, {"per_s", c.dram->per_s}, {"how", c.dram->how}}
                       : json(nullptr);
  return {{"dram", rate_json(c.dram)},
          {"dram_achievable", rate_json(c.dram_achievable)},
          {"dram_ceiling_used", used},
          {"l2", rate_json(c.l2)},
          {"l1", rate_json(c.l1)},
          {"compute", compute},
          {"precision", c.precision},
          {"flop_peak", rate_json(c.flop_peak)},
          {"sm_clock_how", c.sm_clock_how},
          {"launch_floor", c.floor ? json{{"seconds", c.floor->seconds},
                                          {"how", c.floor->how},
                                          {"measured_at", c.floor->measured_at},
                                          {"provisional", c.floor->provisional}}
                                   : json(nullptr)}};
}

json rules_json(const std::vector<NcuRuleResult>& rules) {
  json out = json::array();
  for (const auto& r : rules)
    out.push_back({{"rule", r.rule},
                   {"name", r.name},
                   {"section", r.section},
                   {"title", r.title},
                   {"message", r.message},
                   {"speedup_pct", opt(r.speedup_pct)},
                   {"speedup_type", r.speedup_type}});
  return out;
}

json units_json(const Verdict& v) {
  json out = json::array();
  for (const auto& u : v.units)
    out.push_back({{"name", u.name}, {"metric", u.metric}, {"busy_pct", u.pct}, {"compute_pipe", u.compute}});
  return out;
}

namespace {

json finding_json(const Finding& f, size_t rank) {
  return {{"rank", rank},
          {"id", f.id},
          {"title", f.title},
          {"evidence", f.evidence},
          {"gain_pct", f.gain_pct},
          {"capped_pct", opt(f.capped_pct)},
          {"formula", f.formula},
          {"scope", f.scope},
          {"unit", f.unit.empty() ? json(nullptr) : json(f.unit)},
          {"unit_busy_pct", opt(f.unit_pct)},
          {"unit_work_removed_pct", opt(f.share_pct)},
          {"anchor", f.anchor},
          {"section", f.section},
          {"next_step", f.next_step},
          {"ncu", rules_json(f.ncu)},
          {"agreement", f.agreement},
          {"merged", f.merged_ids}};
}

}  // namespace

json findings_json(const Verdict& v) {
  json out = json::array();
  for (size_t i = 0; i < v.findings.size(); ++i) out.push_back(finding_json(v.findings[i], i + 1));
  return out;
}

json negligible_json(const Verdict& v) {
  json list = json::array();
  for (size_t i = 0; i < v.negligible.size(); ++i) list.push_back(finding_json(v.negligible[i], i + 1));
  return {{"below_pct", threshold::kNegligibleGainPct}, {"line", negligible_line(v)}, {"findings", list}};
}

json not_measured_json(const Verdict& v) {
  json out = json::array();
  for (const auto& n : v.not_measured) out.push_back({{"id", n.id}, {"title", n.title}, {"why", n.why}});
  return out;
}

std::string not_measured_line(const NotMeasured& n) { return n.title + ": not measured (" + n.why + ")"; }

std::string findings_text(const CallVerdict& call, const Verdict& v, size_t n) {
  std::string out;
  bool leads = call.leading >= 0 && &call.kernels[static_cast<size_t>(call.leading)] == &v;
  if (call.bound && leads) out += "  " + bound_sentence(*call.bound) + "\n";
  for (size_t i = 0; i < v.findings.size() && i < n; ++i) {
    const Finding& f = v.findings[i];
    out += fmt::format("  {}. {}: est. gain {} = {}; next: {} [ncu: {}]\n", i + 1, f.title,
                       format_value(f.ranked_pct(), "%"), f.formula, f.next_step, f.section);
  }
  if (!v.negligible.empty()) out += "  " + negligible_line(v) + "\n";
  for (const auto& nm : v.not_measured) out += "  " + not_measured_line(nm) + "\n";
  return out;
}

}  // namespace kprof
