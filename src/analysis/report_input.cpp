#include "analysis/report_input.hpp"

#include "analysis/analyze.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"

namespace kprof {

LoadedReport load_ncu_report(const std::string& path, double timeout_s) {
  LoadedReport out;
  if (!ends_with(path, ".ncu-rep") || !path_exists(path)) {
    out.table = parse_ncu_raw_csv(read_ncu_export(path, timeout_s));  // its own errors for missing/folder
    out.reader = "CSV export";
    out.source_note = "a CSV export holds no per-instruction data; pass the .ncu-rep itself for the hot lines";
    return out;
  }
  std::string why;
  out.rep = try_read_ncu_rep(path, NcuRepReadOptions{}, &why);
  if (out.rep) {
    out.table = metric_table_from_rep(*out.rep);
    out.reader = "ncu_report: " + out.rep->module_origin;
    return out;
  }
  if (find_on_path("ncu").empty())
    throw usage_error("reading " + path + " needs Nsight Compute's Python module ncu_report or its ncu "
                      "executable; neither was found (" + why + ")",
                      ncu_report_install_hint() + "; or add ncu to PATH, or export the report where ncu is "
                      "installed and pass the CSV: " + shell_join(ncu_export_argv("ncu", path)));
  out.table = parse_ncu_raw_csv(read_ncu_export(path, timeout_s));
  out.reader = "ncu --import (CSV)";
  out.source_note = "no ncu_report module could be imported (" + why + "): " + ncu_report_install_hint();
  return out;
}

}  // namespace kprof
