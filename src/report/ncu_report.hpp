// Writers for the ncu part of a profile: ncu_summary.md (the seed's layout: header table,
// sections by category, "## Bottleneck"), ncu_details.md (every collected metric with its unit),
// the JSON of profile.json's "ncu" part, and the verdict as console text. `kprof profile` and
// `kprof analyze` both use them, so their reports cannot differ.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stages/analysis/analyze_stream.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/timing/timing.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// What the caller knows beyond the ncu table: header rows, and typed values the report renders.
struct NcuReportHeader {
  std::string title;  ///< first heading; "" -> "ncu summary: <leading kernel>"
  /// Header table rows in order, e.g. {"Kernel", "..."}, {"GPU", "NVIDIA H200"}, {"Arch", "sm_90"},
  /// {"Dims", "N=1048576"}, {"Execution time", "12.3 us (CUDA events, median of 100)"}.
  std::vector<std::pair<std::string, std::string>> rows;
  /// The timing of the profiled version (nullptr: none, as in `kprof analyze`): its section right
  /// after the header table (timing_markdown) and "timing" in the JSON (timing_json).
  const TimingResult* timing = nullptr;
  /// `kprof analyze` of a large export: the launches not kept in full, a section after the header
  /// table (report/analyze_report.hpp other_launches_markdown); nullptr: none.
  const StreamedAnalysis* streamed = nullptr;
  /// Hot lines by kernel ID (stages/analysis/hot_lines.hpp): each detailed kernel gets a "Hot lines"
  /// section and a "Where in the source" table under its secondary signals; "hot_lines" in the JSON.
  std::map<int, KernelHotLines> hot_lines;
  std::string hot_lines_note;  ///< why there are no hot lines ("" when there are or they were not asked for)
  bool show_sass = false;      ///< list each hot line's SASS instructions in the Markdown
};

/// Header rows for a report known only from its ncu export (`kprof analyze`): Kernel (the
/// leading one, and how many launches), GPU (device__attribute_display_name), Arch (from "CC"),
/// Dims ("not recorded in an ncu report"), Execution time (gpu__time_duration.sum, marked as
/// measured under ncu), Source (`source`, e.g. the report path).
NcuReportHeader header_from_report(const MetricTable& table, const CallVerdict& call, const std::string& source);

/// The Markdown sections after the header table: the timing (report/timing_report.hpp
/// timing_markdown) and the launches not kept in full, each when the header has it; "" when none.
std::string header_sections_markdown(const NcuReportHeader& header);

/// ncu_summary.md: header table, optional timing section, then per kernel the catalog metrics by
/// category (Speed of Light, Memory, Compute, Occupancy, Launch, Scheduler and warp stalls,
/// Roofline point) and "## Bottleneck" with the class, evidence rows, secondary signals, the ncu
/// report sections to read next, and what could not be concluded. Several kernels: a kernel
/// table first, one section per launch, and the call's verdict led by the kernel with the most
/// GPU time.
std::string render_ncu_summary(const MetricTable& table, const CallVerdict& call, const NcuReportHeader& header);

/// ncu_details.md: for each launch, every column of the export with ncu's value and unit and
/// kprof's normalised value (empty or "n/a" cells shown as "n/a").
std::string render_ncu_details(const MetricTable& table, const NcuReportHeader& header);

/// The verdict of one kernel as JSON: class, limiter, summary, evidence, signals, next_sections,
/// missing_metrics, not_concluded.
nlohmann::json verdict_json(const Verdict& v);

/// profile.json's "ncu" part: {"kernels": [{id, name, block, grid, cc, gpu_time_ns, metrics:
/// {ncu name: {label, category, value, unit}}, roofline: {...}, verdict: {...}}], "call": {class,
/// leading_kernel, leading_id, leading_share_pct, total_gpu_time_ns}}, plus "timing" when the
/// header carries one. Catalog metrics that are missing appear with value null.
nlohmann::json ncu_json(const MetricTable& table, const CallVerdict& call, const NcuReportHeader& header = {});

/// The verdict for a terminal: per kernel its class, summary, evidence rows and firing signals;
/// then the call's leading kernel when there are several.
std::string verdict_text(const CallVerdict& call);

/// At most this many launches get their own sections in ncu_summary.md and the console text;
/// the kernel table (and ncu_details.md, and the JSON) still cover every launch. Autotuning can
/// put hundreds of launches into one report.
inline constexpr size_t kMaxDetailedKernels = 10;

/// Indices (report order) of the launches to show in detail: the leading launch plus those with
/// the most GPU time, at most `max`.
std::vector<size_t> kernels_to_detail(const CallVerdict& call, size_t max = kMaxDetailedKernels);

}  // namespace kprof
