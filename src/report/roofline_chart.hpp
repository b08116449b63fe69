// roofline.svg / roofline.png: a hierarchical roofline of the profiled kernels (or of each
// version's leading kernel) against the GPU's ceilings, drawn with matplotlib in the embedded
// Python (python/plot.hpp). Kernels without FLOPs go on a bandwidth chart beside it.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stages/analysis/bound.hpp"
#include "python/chart_pool.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// One kernel (or version) on the chart.
struct RooflineEntry {
  std::string label;                       ///< version name or kernel name
  const KernelMetrics* metrics = nullptr;  ///< its ncu metrics (the version's leading kernel)
  std::optional<WorkModel> work;           ///< the version's least work, when known
  std::optional<TimeBound> bound;          ///< its time bound, when known
};

/// The chart's data: {"title", "bandwidth_ceilings": [{name, bytes_per_s, color, ls}],
/// "compute_ceilings": [{name, flop_per_s}], "points": [{label, flop_per_s, levels: [{level,
/// intensity}], bound: {intensity, flop_per_s} | absent}], "bandwidth_kernels": [{label,
/// bytes_per_s: {DRAM, L2, L1}, useful_bytes_per_s}]}. Points use ncu's FLOP count
/// (roofline_point) over gpu__time_duration; intensity per level = FLOPs / that level's bytes
/// (DRAM: dram__bytes_read + write; L2: lts__t_sectors.sum x 32; L1: the global and local load
/// and store sectors x 32, shared memory not included). The bound star sits at the algorithm's intensity (ref.py flops /
/// least bytes) and FLOPs / bound time. Compute ceilings: FP32, FP64 and the precision used.
nlohmann::json roofline_spec(const std::vector<RooflineEntry>& entries, const Ceilings& c, const std::string& title);

/// True when `spec` has at least one point or bandwidth kernel to draw.
bool roofline_has_data(const nlohmann::json& spec);

/// A roofline chart being drawn (start_roofline); note() waits for it.
class RooflineJob {
 public:
  /// "" once DIR/roofline.svg and .png are written, else a one-line note saying why not
  /// ("roofline not drawn: ..."). Waits for the chart worker drawing it; may be called again.
  std::string note() const;
  /// A chart that is not drawn, for `why` ("roofline not drawn: ...").
  static RooflineJob not_drawn(std::string why) {
    RooflineJob j;
    j.note_ = std::move(why);
    return j;
  }

 private:
  friend RooflineJob start_roofline(const std::string& dir, const nlohmann::json& spec);
  std::string note_;     ///< why not, when known at once
  ChartResult drawing_;  ///< the chart being drawn (python/chart_pool.hpp)
};

/// Starts drawing DIR/roofline.svg and DIR/roofline.png from `spec` (python/chart_pool.hpp
/// draw_chart: on a chart worker when they run, else now in this process). Never throws.
RooflineJob start_roofline(const std::string& dir, const nlohmann::json& spec);

/// start_roofline(dir, spec).note(): "" when written, else a one-line note saying why not
/// (matplotlib missing, nothing to draw). Never throws.
std::string write_roofline(const std::string& dir, const nlohmann::json& spec);

}  // namespace kprof
