#include "report/hot_lines_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "stages/analysis/format.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace {

using nlohmann::json;

std::string heading(int level, const std::string& text) {
  return std::string(static_cast<size_t>(level), '#') + " " + text + "\n\n";
}

std::string base_name(const std::string& file) { return std::filesystem::path(file).filename().string(); }

std::string loc(const SourceRef& s) { return base_name(s.file) + ":" + std::to_string(s.line); }

/// "`text`" shortened to 70 characters, or "" when there is no text.
std::string code(const std::string& text) {
  if (text.empty()) return "";
  std::string t = text.size() > 70 ? text.substr(0, 67) + "..." : text;
  for (char& c : t)
    if (c == '`') c = '\'';
  return "`" + t + "`";
}

/// A count with an SI prefix ("3.67 M", "42").
std::string si(double v) { return trim(format_si(v, "")); }

/// An amount, "-" when zero.
std::string count(double v) { return v > 0 ? si(v) : "-"; }

std::string stalls_cell(const std::vector<LineStall>& stalls) {
  std::string out;
  for (const auto& s : stalls) out += (out.empty() ? "" : ", ") + fmt::format("{} {:.0f}%", s.reason, s.share_pct);
  return out.empty() ? "-" : out;
}

std::string excess_cell(double excess, double total) {
  if (excess <= 0) return "-";
  return fmt::format("{} of {}", si(excess), si(total));
}

std::string source_cell(const HotLine& l) {
  std::string out = code(l.where.text);
  if (l.library) {
    out += (out.empty() ? "" : " ") + std::string("(library");
    out += l.via ? "; entered from " + loc(*l.via) + (l.via->text.empty() ? "" : " " + code(l.via->text)) + "*)" : ")";
  }
  return out.empty() ? "(source not in the report)" : out;
}

std::string samples_sentence(const KernelHotLines& h) {
  std::string out = fmt::format("{} warp samples (ncu PC sampling: {} per instruction)",
                                format_value(h.total_samples, ""), metric::kPcStallReasons);
  if (h.has_line_info) out += fmt::format(" over {} source lines", h.lines_sampled);
  out += ".";
  if (h.too_few_samples)
    out += fmt::format(
        " **Too few samples to rank lines reliably** (fewer than {}: a line at 10% carries "
        "about +-{:.1f} points); profile a larger problem or several calls for a firmer ranking.",
        fmt_sig(kMinReliableSamples, 3), 100.0 * std::sqrt(0.09 / std::max(h.total_samples, 1.0)));
  return out + "\n\n";
}

std::string instruction_rows(const std::vector<HotInstruction>& ins) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& i : ins)
    rows.push_back({fmt::format("0x{:x}", i.pc), md_code_span(i.sass), fmt::format("{:.1f}%", i.share_pct),
                    i.top_stall.empty() ? "-" : i.top_stall});
  return markdown_table({"PC", "SASS", "Samples", "Leading stall"}, rows);
}

json instruction_json(const HotInstruction& i) {
  return {{"pc", i.pc},           {"sass", i.sass},           {"opcode", i.opcode},
          {"samples", i.samples}, {"share_pct", i.share_pct}, {"top_stall", i.top_stall}};
}

json ref_json(const SourceRef& s) { return {{"file", s.file}, {"line", s.line}, {"text", s.text}}; }

/// The waste kind a secondary signal is about, from its ncu metric names ("" when none).
std::string kind_of_signal(const SignalRow& s) {
  const std::string& m = s.metric;
  if (m.find("data_bytes_per_sector_mem_global") != std::string::npos) return "uncoalesced";
  if (m.find("bank_conflicts") != std::string::npos) return "bank_conflicts";
  if (m.find("mem_local") != std::string::npos) return "local_memory";
  if (m.find("branch_targets_threads") != std::string::npos) return "divergence";
  const std::string stall = metric::kStallPrefix;
  size_t p = m.find(stall);
  if (p == std::string::npos) return "";
  size_t end = m.find("_per_issue_active", p);
  return end == std::string::npos ? "" : "stall:" + m.substr(p + stall.size(), end - p - stall.size());
}

}  // namespace

std::string hot_lines_anchor(int kernel_id) { return "hot-lines-" + std::to_string(kernel_id); }

std::string hot_lines_markdown(const KernelHotLines& h, int level, bool with_sass) {
  std::string out = fmt::format("<a id=\"{}\"></a>\n\n", hot_lines_anchor(h.kernel_id)) + heading(level, "Hot lines");
  if (!h.has_source_counters) return out + "Not available: " + h.note + ".\n\n";
  out += samples_sentence(h);
  if (!h.has_line_info) {
    out += "No line info: " + h.note + ". Top SASS instructions by share of warp samples:\n\n";
    return out + instruction_rows(h.top_instructions) + "\n";
  }
  out +=
      "Lines by share of warp samples (± binomial standard error). Waste columns: excess = beyond the ideal "
      "for the bytes requested (ncu derived__memory_*_excessive); local = local-memory sectors of 32 bytes.\n\n";
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < h.lines.size(); ++i) {
    const HotLine& l = h.lines[i];
    rows.push_back({std::to_string(i + 1), loc(l.where), source_cell(l),
                    fmt::format("{:.1f}% ± {:.1f}", l.share_pct, l.share_stderr_pct), stalls_cell(l.stalls),
                    count(l.inst_executed), l.threads_per_inst ? fmt_sig(*l.threads_per_inst, 3) : "-",
                    excess_cell(l.global_sectors_excess, l.global_sectors),
                    excess_cell(l.shared_wavefronts_excess, l.shared_wavefronts), count(l.local_sectors)});
  }
  out += markdown_table({"#", "Line", "Source", "Samples", "Leading stalls", "Warp instructions", "Threads/inst",
                         "Excess global sectors", "Excess shared wavefronts (bank conflicts)", "Local sectors"},
                        rows) +
         "\n";
  bool any_library = false;
  for (const auto& l : h.lines) any_library = any_library || l.library;
  if (any_library)
    out +=
        "\\* the user's line that led into the library: the nearest earlier instruction from a non-library "
        "file, in address order (the report's line table carries no inlining call sites).\n\n";
  if (with_sass) {
    for (size_t i = 0; i < h.lines.size(); ++i)
      out += fmt::format("SASS of line {} ({}):\n\n", i + 1, loc(h.lines[i].where)) +
             instruction_rows(h.lines[i].instructions) + "\n";
  }
  return out;
}

std::string where_in_source_markdown(const KernelHotLines& h, const Verdict& v, int level) {
  if (h.waste.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& w : h.waste) {
    std::string explains;
    for (const auto& s : v.signals)
      if (kind_of_signal(s) == w.kind)
        explains += (explains.empty() ? "" : "; ") + s.symptom + " (" + signal_state_name(s.state) + ")";
    std::string site;
    if (w.where)
      site = fmt::format("[{}](#{}) {}", loc(*w.where), hot_lines_anchor(h.kernel_id), code(w.where->text));
    else if (w.instruction)
      site = fmt::format("[0x{:x}](#{}) {}", w.instruction->pc, hot_lines_anchor(h.kernel_id),
                         md_code_span(w.instruction->sass));
    rows.push_back({w.kind, explains.empty() ? "-" : explains, site,
                    fmt::format("{} {} ({:.0f}% of the kernel's)", si(w.value), w.what, w.share_pct),
                    w.rank > 0 ? std::to_string(w.rank) : "-"});
  }
  return heading(level, "Where in the source") +
         markdown_table({"Waste", "Explains", "Site", "Amount", "Hot-line rank"}, rows) + "\n";
}

json hot_lines_json(const KernelHotLines& h) {
  json lines = json::array();
  for (const auto& l : h.lines) {
    json stalls = json::array(), ins = json::array();
    for (const auto& s : l.stalls)
      stalls.push_back({{"reason", s.reason}, {"samples", s.samples}, {"share_pct", s.share_pct}});
    for (const auto& i : l.instructions) ins.push_back(instruction_json(i));
    lines.push_back({{"file", l.where.file},
                     {"line", l.where.line},
                     {"text", l.where.text},
                     {"samples", l.samples},
                     {"share_pct", l.share_pct},
                     {"share_stderr_pct", l.share_stderr_pct},
                     {"stalls", stalls},
                     {"inst_executed", l.inst_executed},
                     {"threads_per_inst", l.threads_per_inst ? json(*l.threads_per_inst) : json(nullptr)},
                     {"global_sectors", l.global_sectors},
                     {"global_sectors_ideal", l.global_sectors_ideal},
                     {"global_sectors_excess", l.global_sectors_excess},
                     {"shared_wavefronts", l.shared_wavefronts},
                     {"shared_wavefronts_ideal", l.shared_wavefronts_ideal},
                     {"shared_wavefronts_excess", l.shared_wavefronts_excess},
                     {"local_sectors", l.local_sectors},
                     {"divergent_branch_targets", l.divergent_branch_targets},
                     {"library", l.library},
                     {"via", l.via ? ref_json(*l.via) : json(nullptr)},
                     {"instructions", ins}});
  }
  json top = json::array(), waste = json::array();
  for (const auto& i : h.top_instructions) top.push_back(instruction_json(i));
  for (const auto& w : h.waste)
    waste.push_back({{"kind", w.kind},
                     {"what", w.what},
                     {"where", w.where ? ref_json(*w.where) : json(nullptr)},
                     {"instruction", w.instruction ? instruction_json(*w.instruction) : json(nullptr)},
                     {"value", w.value},
                     {"kernel_total", w.kernel_total},
                     {"share_pct", w.share_pct},
                     {"rank", w.rank}});
  return {{"kernel_id", h.kernel_id},
          {"kernel", h.kernel},
          {"has_source_counters", h.has_source_counters},
          {"has_line_info", h.has_line_info},
          {"total_samples", h.total_samples},
          {"min_reliable_samples", kMinReliableSamples},
          {"too_few_samples", h.too_few_samples},
          {"lines_sampled", h.lines_sampled},
          {"note", h.note},
          {"lines", lines},
          {"top_instructions", top},
          {"waste", waste}};
}

std::string hot_lines_text(const KernelHotLines& h, size_t n) {
  if (!h.has_source_counters || !h.has_line_info) {
    std::string out = "  hot lines: " + h.note + "\n";
    for (size_t i = 0; i < h.top_instructions.size() && i < n; ++i)
      out += fmt::format("  hot: {:.1f}% {}{}\n", h.top_instructions[i].share_pct, h.top_instructions[i].sass,
                         h.top_instructions[i].top_stall.empty() ? "" : " | " + h.top_instructions[i].top_stall);
    return out;
  }
  std::string out;
  if (h.too_few_samples)
    out += fmt::format("  hot lines: only {} warp samples, too few to rank lines reliably\n",
                       format_value(h.total_samples, ""));
  for (size_t i = 0; i < h.lines.size() && i < n; ++i) {
    const HotLine& l = h.lines[i];
    out += fmt::format("  hot: {} {:.1f}% {}{}\n", loc(l.where), l.share_pct, stalls_cell(l.stalls),
                       l.where.text.empty() ? "" : " | " + l.where.text);
  }
  return out;
}

}  // namespace kprof
