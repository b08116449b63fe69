#include "stages/analysis/report_input.hpp"

#include <filesystem>

#include "core/fs.hpp"
#include "core/text.hpp"

namespace kprof {

std::optional<LoadedReport> load_with_ncu_report(const std::string& path, std::string* why_not) {
  if (!ends_with(path, ".ncu-rep") || !std::filesystem::is_regular_file(path)) {
    if (why_not) *why_not = "a CSV export holds no per-instruction data; pass the .ncu-rep itself for the hot lines";
    return std::nullopt;
  }
  std::string why;
  NcuRepReadOptions ro;
  ro.sass = false;  // read for the instructions the reports show (hot_lines_of_report)
  auto rep = try_read_ncu_rep(path, ro, &why);
  if (!rep) {
    if (why_not) *why_not = "no ncu_report module could be imported (" + why + "): " + ncu_report_install_hint();
    return std::nullopt;
  }
  LoadedReport out;
  out.table = metric_table_from_rep(*rep);
  out.reader = "ncu_report: " + rep->module_origin;
  out.rep = std::move(*rep);
  return out;
}

}  // namespace kprof
