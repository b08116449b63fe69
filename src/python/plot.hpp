// Charts drawn with matplotlib in the embedded Python (the field's usual plotting library;
// kprof draws nothing itself). Used by report/roofline_chart.hpp.
#pragma once

#include <string>

namespace kprof {

/// The charts kprof draws.
enum class ChartKind { Roofline, Sweep };

/// Draws chart `kind` from `spec_json` into `svg_path` and `png_path` in this process (the
/// embedded Python); "" when drawn, else why not in one line. Never throws.
std::string render_chart(ChartKind kind, const std::string& spec_json, const std::string& svg_path,
                         const std::string& png_path);

/// The Python code of a chart (it defines draw(spec_text, svg_path, png_path)) and the code run
/// before it (_save), for the chart workers of python/chart_pool.hpp; chart_name says "the
/// roofline chart" for messages.
const char* chart_code(ChartKind kind);
const char* chart_save_code();
const char* chart_name(ChartKind kind);

/// Draws the roofline described by `spec_json` (the format of report/roofline_chart.hpp
/// roofline_spec) into `svg_path` and `png_path` (each written to a temporary file and renamed,
/// so a chart is whole or absent). Returns "" on success, else why not, in one line:
/// "matplotlib is not installed in kprof's Python (...): pip install matplotlib", or the Python
/// error. Never throws; starts Python if needed.
std::string render_roofline(const std::string& spec_json, const std::string& svg_path, const std::string& png_path);

/// Draws the sweep chart described by `spec_json` (report/units_report.hpp sweep_chart_spec: time
/// and % of bound against size, one line per version) into `svg_path` and `png_path`, whole or
/// absent. Returns "" on success, else why not in one line (as render_roofline). Never throws.
std::string render_sweep_chart(const std::string& spec_json, const std::string& svg_path, const std::string& png_path);

}  // namespace kprof
