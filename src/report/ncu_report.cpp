#include "report/ncu_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/derived.hpp"
#include "stages/analysis/format.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"
#include "report/hot_lines_report.hpp"
#include "report/bound_report.hpp"
#include "report/analyze_report.hpp"
#include "report/findings_report.hpp"
#include "report/timing_report.hpp"

namespace kprof {

namespace {

std::string heading(int level, const std::string& text) {
  return std::string(static_cast<size_t>(level), '#') + " " + text + "\n\n";
}

/// "sm_90 (CC 9.0)" from ncu's "CC" column.
std::string arch_of(const std::string& cc) {
  if (cc.empty()) return "not recorded";
  std::string digits;
  for (char c : cc)
    if (c != '.') digits += c;
  return "sm_" + digits + " (CC " + cc + ")";
}

/// A catalog metric's value formatted with its unit ("not collected" when missing).
std::string metric_cell(const KernelMetrics& k, const MetricSpec& spec, std::string* used) {
  auto v = catalog_value(k, spec.name, used);
  if (!v) return "not collected";
  auto it = k.metrics.find(*used);
  std::string unit = it != k.metrics.end() && !it->second.unit.empty() ? it->second.unit : spec.unit;
  return format_value(*v, unit);
}

bool is_detail_only(const MetricSpec& s) {
  std::string n = s.name;
  // Individual stall reasons and raw roofline rates are summarised, not listed one by one.
  return n.rfind(metric::kStallPrefix, 0) == 0 || s.category == MetricCategory::Roofline;
}

std::string category_table(const KernelMetrics& k, MetricCategory cat) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& spec : metric_catalog()) {
    if (spec.category != cat || is_detail_only(spec)) continue;
    std::string used = spec.name;
    std::string value = metric_cell(k, spec, &used);
    rows.push_back({spec.label, value, used});
  }
  return markdown_table({"Metric", "Value", "ncu metric"}, rows);
}

std::string stall_table(const KernelMetrics& k) {
  auto stalls = ranked_stalls(k);
  if (stalls.empty()) return "Warp stall reasons: not collected.\n\n";
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < stalls.size() && i < 5; ++i)
    rows.push_back(
        {stalls[i].reason, fmt_sig(stalls[i].cycles, 4), format_value(stalls[i].share_pct, "%"), stalls[i].metric});
  std::string out =
      "Leading warp stall reasons (cycles per issued instruction; share of all warp "
      "cycles between two issued instructions):\n\n";
  out += markdown_table({"Stall reason", "Cycles", "Share", "ncu metric"}, rows);
  if (stalls.size() > 5)
    out += fmt::format("\n{} other reasons, each at most {}.\n", stalls.size() - 5,
                       format_value(stalls[5].share_pct, "%"));
  return out + "\n";
}

std::string roofline_table(const KernelMetrics& k) {
  Roofline r = roofline_point(k);
  auto flop = [](const std::optional<double>& v) { return v ? format_si(*v, "FLOP") : "not collected"; };
  std::vector<std::vector<std::string>> rows = {
      {"FP32 FLOPs (FADD + FMUL + 2 x FFMA)", flop(r.fp32_flop)},
      {"FP64 FLOPs (DADD + DMUL + 2 x DFMA)", flop(r.fp64_flop)},
      {"FP16 FLOPs (2 x HADD + 2 x HMUL + 4 x HFMA)", flop(r.fp16_flop)},
      {std::string("Tensor ops (ncu ") + metric::kTensorOpsPrefix + "*)",
       r.tensor_ops ? format_si(*r.tensor_ops, "op") : "not collected"},
      {"Total", flop(r.total_flop)},
      {"DRAM bytes (read + write)", format_optional(r.dram_bytes, "byte")},
      {"Arithmetic intensity", r.intensity ? fmt_sig(*r.intensity, 3) + " FLOP/byte" : "not collected"},
      {"Achieved FLOP/s", r.flop_per_s ? format_si(*r.flop_per_s, "FLOP/s") : "not collected"},
      {"FP32 rate, % of FP32 peak", format_optional(r.fp32_peak_pct, "%")},
      {"Achieved DRAM bandwidth", format_optional(r.dram_bytes_per_s, "byte/s")},
      {"Peak DRAM bandwidth", format_optional(r.peak_dram_bytes_per_s, "byte/s")},
  };
  return markdown_table({"Quantity", "Value"}, rows) +
         fmt::format("\nFLOPs follow ncu's roofline: thread-instruction rates ({}) x {}.\n\n",
                     thread_inst_rate_metric("*"), metric::kSmspCycles);
}

std::string evidence_table(const Verdict& v) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : v.evidence) rows.push_back({e.check, e.metric, e.value, e.threshold, e.holds ? "yes" : "no"});
  return markdown_table({"Check", "ncu metric", "Value", "Threshold", "Holds"}, rows);
}

std::string signal_table(const Verdict& v) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : v.signals)
    rows.push_back({s.symptom, s.metric, s.value, s.threshold, s.ideal, signal_state_name(s.state), s.likely_issue});
  return markdown_table({"Symptom", "ncu metric", "Value", "Threshold", "Ideal", "Fires", "Likely issue"}, rows);
}

std::string bottleneck_body(const Verdict& v, int level) {
  std::string out = fmt::format("**{}{}.** {}\n\n", bottleneck_name(v.cls),
                                v.limiter.empty() ? "" : " (" + v.limiter + ")", v.summary);
  if (!v.evidence.empty()) out += evidence_table(v) + "\n";
  out += heading(level + 1, "Secondary signals") + signal_table(v) + "\n";
  out += findings_markdown(v, level + 1);
  out += heading(level + 1, "Next sections of the ncu report to read");
  for (size_t i = 0; i < v.next_sections.size(); ++i) out += fmt::format("{}. {}\n", i + 1, v.next_sections[i]);
  out += "\n";
  if (!v.not_concluded.empty()) {
    out += heading(level + 1, "Not concluded (metrics missing from this report)");
    for (const auto& s : v.not_concluded) out += "- " + s + "\n";
    out += "\n";
  }
  if (!v.missing_metrics.empty()) {
    out += fmt::format("Catalog metrics this report lacks ({}): ", v.missing_metrics.size());
    for (size_t i = 0; i < v.missing_metrics.size(); ++i) out += (i ? ", " : "") + v.missing_metrics[i];
    out += ".\n\n";
  }
  return out;
}

/// The "Where in the source" table and the "Hot lines" section of kernel `id` (or the note why none).
std::string hot_lines_sections(const NcuReportHeader& header, const Verdict& v, int level) {
  auto it = header.hot_lines.find(v.id);
  if (it != header.hot_lines.end())
    return where_in_source_markdown(it->second, v, level + 1) + hot_lines_markdown(it->second, level, header.show_sass);
  if (header.hot_lines_note.empty()) return "";
  return heading(level, "Hot lines") + "Not available: " + header.hot_lines_note + ".\n\n";
}

std::string kernel_sections(const KernelMetrics& k, const Verdict& v, int level, const NcuReportHeader& header) {
  std::string out;
  for (MetricCategory cat : {MetricCategory::SpeedOfLight, MetricCategory::Memory, MetricCategory::Compute,
                             MetricCategory::Occupancy, MetricCategory::Launch, MetricCategory::Scheduler}) {
    out += heading(level, category_title(cat)) + category_table(k, cat) + "\n";
    if (cat == MetricCategory::Scheduler) out += stall_table(k);
  }
  out += heading(level, category_title(MetricCategory::Roofline)) + roofline_table(k);
  out += heading(level, "Bottleneck") + bottleneck_body(v, level);
  return out + hot_lines_sections(header, v, level);
}

std::string header_block(const NcuReportHeader& header, const std::string& fallback_title) {
  std::string out = heading(1, header.title.empty() ? fallback_title : header.title);
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : header.rows) rows.push_back({k, v});
  if (!rows.empty()) out += markdown_table({"Item", "Value"}, rows) + "\n";
  if (std::string extra = header_sections_markdown(header); !extra.empty()) out += trim(extra) + "\n\n";
  return out;
}

std::string leading_name(const CallVerdict& call) {
  if (call.leading < 0) return "no kernel";
  return display_kernel_name(call.kernels[static_cast<size_t>(call.leading)].kernel);
}

}  // namespace

std::vector<size_t> kernels_to_detail(const CallVerdict& call, size_t max) {
  std::vector<size_t> order(call.kernels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto time = [&](size_t i) {
    double t = call.kernels[i].gpu_time_ns;
    return std::isnan(t) ? -1.0 : t;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (static_cast<int>(a) == call.leading) return static_cast<int>(b) != call.leading;
    if (static_cast<int>(b) == call.leading) return false;
    return time(a) > time(b);
  });
  if (order.size() > max) order.resize(max);
  std::sort(order.begin(), order.end());
  return order;
}

std::string header_sections_markdown(const NcuReportHeader& header) {
  std::string md;
  if (header.timing) md += timing_markdown(*header.timing);
  if (header.streamed) md += (md.empty() ? "" : "\n") + other_launches_markdown(*header.streamed);
  return md;
}

NcuReportHeader header_from_report(const MetricTable& table, const CallVerdict& call, const std::string& source) {
  NcuReportHeader h;
  const KernelMetrics* lead = call.leading >= 0 && static_cast<size_t>(call.leading) < table.kernels.size()
                                  ? &table.kernels[static_cast<size_t>(call.leading)]
                                  : nullptr;
  std::string kernel = lead ? lead->name : "no kernel";
  if (table.kernels.size() > 1) kernel += fmt::format(" (leads; {} launches in the report)", table.kernels.size());
  h.rows.emplace_back("Kernel", kernel);
  std::string gpu = lead ? lead->text(metric::kDeviceName) : "";
  h.rows.emplace_back("GPU", gpu.empty() ? "not recorded" : gpu);
  h.rows.emplace_back("Arch", lead ? arch_of(lead->cc) : "not recorded");
  h.rows.emplace_back("Dims", "not recorded in an ncu report");
  std::string time = fmt::format("not collected ({} missing)", metric::kDuration);
  if (lead) {
    if (auto ns = catalog_value(*lead, metric::kDuration))
      time = format_value(*ns, "ns") +
             fmt::format(" (ncu {} of this launch, measured under the profiler, not CUDA events)", metric::kDuration);
  }
  if (table.kernels.size() > 1 && call.total_gpu_time_ns > 0)
    time += fmt::format("; all launches: {}", format_value(call.total_gpu_time_ns, "ns"));
  h.rows.emplace_back("Execution time", time);
  h.rows.emplace_back("Source", source);
  return h;
}

std::string render_ncu_summary(const MetricTable& table, const CallVerdict& call, const NcuReportHeader& header) {
  std::string out = header_block(header, "ncu summary: " + leading_name(call));
  if (table.kernels.empty()) return out + "No kernel was profiled.\n";
  if (table.kernels.size() == 1)
    return out + kernel_sections(table.kernels[0], call.kernels[0], 2, header) + bound_markdown(call, 2) +
           implementation_bound_markdown(call, 2) + clock_check_markdown(call, 2);

  std::vector<std::vector<std::string>> rows;
  for (const auto& v : call.kernels) {
    double share = call.total_gpu_time_ns > 0 && !std::isnan(v.gpu_time_ns)
                       ? 100.0 * v.gpu_time_ns / call.total_gpu_time_ns
                       : std::nan("");
    rows.push_back({std::to_string(v.id), v.kernel, format_value(v.gpu_time_ns, "ns"), format_value(share, "%"),
                    bottleneck_name(v.cls)});
  }
  out += heading(2, "Kernels") + markdown_table({"ID", "Kernel", "GPU time", "Share", "Class"}, rows) + "\n";
  std::vector<size_t> shown = kernels_to_detail(call);
  if (shown.size() < table.kernels.size())
    out += fmt::format(
        "Sections follow for the {} launches with the most GPU time; ncu_details.md "
        "and the JSON cover all {}.\n\n",
        shown.size(), table.kernels.size());
  for (size_t i : shown)
    out +=
        heading(2, fmt::format("Kernel ID {}: {}", table.kernels[i].id, display_kernel_name(table.kernels[i].name))) +
        kernel_sections(table.kernels[i], call.kernels[i], 3, header);
  out += heading(2, "Bottleneck");
  if (call.leading >= 0) {
    const Verdict& lead = call.kernels[static_cast<size_t>(call.leading)];
    out += fmt::format("The call is led by **{}** (ID {}, {} of the GPU time): **{}**{}. {}\n\n", lead.kernel, lead.id,
                       format_value(call.leading_share_pct, "%"), bottleneck_name(lead.cls),
                       lead.limiter.empty() ? "" : " (" + lead.limiter + ")", lead.summary);
    out += evidence_table(lead) +
           "\nSee its section above for the secondary signals, the ranked findings and the "
           "next sections of the ncu report to read.\n\n";
  }
  return out + bound_markdown(call, 2) + implementation_bound_markdown(call, 2) + clock_check_markdown(call, 2);
}

std::string render_ncu_details(const MetricTable& table, const NcuReportHeader& header) {
  std::string out = header_block(header, "ncu details");
  out +=
      "Every metric of the export: ncu's value and unit as written, and kprof's value in base "
      "units (the one the summary and the classifier use).\n\n";
  for (const auto& k : table.kernels) {
    out += heading(2, fmt::format("Kernel ID {}: {}", k.id, k.name));
    out += fmt::format("Block {}, grid {}, device {}, CC {}.\n\n", k.block, k.grid, k.device, k.cc);
    std::vector<std::vector<std::string>> rows;
    for (const auto& col : table.columns) {
      auto it = k.metrics.find(col);
      if (it == k.metrics.end()) continue;
      const MetricValue& mv = it->second;
      std::string raw = trim(mv.raw).empty() ? "n/a" : mv.raw;
      std::string base = mv.value ? format_value(*mv.value, mv.unit) : (trim(mv.raw).empty() ? "n/a" : "");
      rows.push_back({col, raw, mv.raw_unit, base});
    }
    out += markdown_table({"Metric", "Value", "Unit", "kprof value"}, rows) + "\n";
  }
  return out;
}

}  // namespace kprof
