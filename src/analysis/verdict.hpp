// What the classifier concludes for one kernel and for a whole call: the seed's primary class,
// the evidence rows behind it (metric, value, threshold), the secondary signals, the ncu report
// sections to read next, and what it could not conclude for lack of metrics.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// The seed's primary classes, plus NotClassified when the SOL metrics are missing.
enum class Bottleneck { MemoryBound, ComputeBound, OccupancyBound, LatencyBound, Mixed, NotClassified };

/// "Memory-Bound", "Compute-Bound", "Occupancy-Bound", "Latency-Bound", "Mixed", "Not classified".
std::string bottleneck_name(Bottleneck b);

/// One checked condition: which metric, its value, the threshold, and whether it holds.
struct EvidenceRow {
  std::string check;      ///< what is checked ("Memory SOL > 60%")
  std::string metric;     ///< ncu metric name(s) behind the value
  std::string value;      ///< formatted value with unit ("80.9%"), or "not collected"
  std::string threshold;  ///< the threshold and its source ("> 60% (seed)")
  bool holds = false;     ///< the condition is true for this kernel
  bool collected = true;  ///< false when the metric was missing
};

/// State of one secondary signal.
enum class SignalState { Fires, Clear, NotCollected, NotApplicable };

/// "yes", "no", "not collected", "n/a".
std::string signal_state_name(SignalState s);

/// One row of the seed's secondary-signal table, evaluated.
struct SignalRow {
  std::string symptom;       ///< the seed's symptom wording, made specific ("Global load efficiency < 95%")
  std::string metric;        ///< ncu metric name(s)
  std::string value;         ///< formatted measured value(s), or "not collected"
  std::string threshold;     ///< threshold with its source
  std::string ideal;         ///< the ideal value, stated honestly
  SignalState state = SignalState::NotCollected;
  std::string likely_issue;  ///< the seed's "likely issue" for this symptom
  std::vector<std::string> missing;  ///< metrics this row lacked
};

/// The verdict for one profiled kernel launch.
struct Verdict {
  int id = -1;                 ///< ncu launch ID
  std::string kernel;          ///< full kernel name
  double gpu_time_ns = 0;      ///< gpu__time_duration.sum in ns (NaN when missing)
  Bottleneck cls = Bottleneck::NotClassified;
  std::string limiter;         ///< DRAM / L1 / L2, the busiest pipe, the occupancy limiter, or the latency cause
  std::string summary;         ///< one sentence: class, limiter and the deciding numbers
  std::vector<EvidenceRow> evidence;          ///< the class's conditions (and causes), in check order
  std::vector<SignalRow> signals;             ///< every row of the seed's secondary-signal table
  std::vector<std::string> next_sections;     ///< ncu report sections to read next
  std::vector<std::string> missing_metrics;   ///< catalog metrics absent or n/a for this kernel
  std::vector<std::string> not_concluded;     ///< conclusions not drawn, each naming the metrics it lacked
};

/// The verdict for a call (all kernels of one report / one `solve` call).
struct CallVerdict {
  std::vector<Verdict> kernels;  ///< one per profiled launch, report order
  int leading = -1;              ///< index into `kernels` of the launch that leads the call, -1 if none
  std::string leading_name;      ///< kernel name with the most total GPU time (summed over its launches)
  double total_gpu_time_ns = 0;  ///< sum of gpu__time_duration.sum over launches that have it
  double leading_share_pct = 0;  ///< the leading kernel name's share of total GPU time, %
  /// The call's class: the leading kernel's (NotClassified when there is none).
  Bottleneck cls() const {
    return leading >= 0 ? kernels[static_cast<size_t>(leading)].cls : Bottleneck::NotClassified;
  }
};

}  // namespace kprof
