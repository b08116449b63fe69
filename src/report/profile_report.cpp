#include "report/profile_report.hpp"

#include "core/fs.hpp"
#include "core/text.hpp"

namespace kprof {

std::string unclassified_summary(const NcuReportHeader& header, const std::string& failure, const std::string& hint) {
  std::string md = "# " + (header.title.empty() ? std::string("ncu summary") : header.title) + "\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : header.rows) rows.push_back({k, v});
  md += markdown_table({"Item", "Value"}, rows);
  if (std::string extra = header_sections_markdown(header); !extra.empty()) md += "\n" + extra + "\n";
  md += "\n## Bottleneck\n\nNot classified: " + failure + ".\n";
  if (!hint.empty()) md += "\nWhat to do: " + hint + ".\n";
  md += "\nThe execution time above was measured before profiling and is valid on its own.\n";
  return md;
}

std::string unclassified_details(const NcuReportHeader& header, const std::string& ncu_log, const MetricTable* table) {
  std::string details = table ? render_ncu_details(*table, header) : "# ncu details\n\nNo metrics were collected.\n";
  if (!ncu_log.empty()) details += "\n## ncu output\n\n```\n" + ncu_log + "\n```\n";
  return details;
}

}  // namespace kprof
