// What the classifier concludes for one kernel and for a whole call: the seed's primary class,
// the evidence rows behind it (metric, value, threshold), the secondary signals, the ncu report
// sections to read next, and what it could not conclude for lack of metrics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/bound.hpp"
#include "stages/analysis/clock_check.hpp"
#include "stages/analysis/limiter.hpp"
#include "stages/analysis/ncu_rules.hpp"

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
  /// The value as a number in `unit` when the row checks one number ("%", "points", "waves per
  /// SM", "warps per scheduler"); nullopt when the value is a list or a name (`value` says it).
  std::optional<double> number{};
  std::string unit{};
};

/// State of one secondary signal.
enum class SignalState { Fires, Clear, NotCollected, NotApplicable };

/// "yes", "no", "not collected", "n/a".
std::string signal_state_name(SignalState s);

/// One row of the seed's secondary-signal table, evaluated.
struct SignalRow {
  std::string id;                ///< stable key: "uncoalesced-loads", "l1-hit", "thread-divergence", ... (findings.hpp)
  std::string symptom;           ///< the seed's symptom wording, made specific ("Global load efficiency < 95%")
  std::string metric;            ///< ncu metric name(s)
  std::string value;             ///< formatted measured value(s), or "not collected"
  std::optional<double> number;  ///< the value the threshold is checked against, in `unit` (JSON "value")
  std::string unit;              ///< "%", "sectors", "threads per instruction", ...
  std::string threshold;         ///< threshold with its source
  std::string ideal;             ///< the ideal value, stated honestly
  SignalState state = SignalState::NotCollected;
  std::string likely_issue;          ///< the seed's "likely issue" for this symptom
  std::vector<std::string> missing;  ///< metrics this row lacked
};

/// One finding.
struct Finding {
  std::string id;        ///< its catalog row's key (stages/analysis/finding_catalog.hpp: every id is a row)
  std::string title;     ///< "Uncoalesced global loads"
  std::string evidence;  ///< the firing signal(s) and their values
  double gain_pct = 0;   ///< estimated share of the kernel's time it could save, %, before the cap
  std::string
      formula;  ///< the formula with its numbers: "(1 - 4/32 B per sector) x (1 - L1 hit 0.0%) x L2 throughput 91.3% = 79.8%"
  std::string scope;   ///< "global" (share of the kernel's time) or "local" (share of one unit's time), as ncu says
  std::string anchor;  ///< the ncu rule the formula follows, or "kprof" for kprof's own
  std::optional<double> capped_pct;  ///< gain after the cap by the headroom to the bound (set when it bites)
  std::string section;               ///< the ncu report section to read
  std::string next_step;             ///< one concrete next step
  std::vector<NcuRuleResult> ncu;    ///< ncu's own rule results about the same issue (when the report has them)
  std::string agreement;             ///< "agree" / "differ: ..." against ncu's largest estimate; "" without one
  std::string unit;                  ///< the unit whose work the fix removes ("L1/TEX", "DRAM", ...); "" for latency
  std::optional<double> unit_pct;    ///< that unit's busy %, as collected
  std::optional<double> share_pct;   ///< % of that unit's work the fix removes
  std::string differ_why;            ///< why kprof's estimate and ncu's can differ for this kind of finding
  /// The unit whose busy time capped the gain (100% - its busy %, the busiest unit the fix leaves
  /// as it is: "FMA pipe"), "" when no unit's cap bit. A finding capped by a unit another finding
  /// names (its `unit`) is merged into that one (findings.hpp, docs/METHOD.md "One finding per cause").
  std::string capped_by{};
  /// The metrics whose values form the finding's ratios (numerators and denominators). One rule,
  /// in findings_for_kernel: a finding with one of them missing or zero is "not measured", never
  /// a finding (a ratio of LDG bytes on a kernel that loads through LDGSTS or TMA, for one).
  std::vector<std::string> ratio_inputs{};
  /// Ids of findings with the same root merged into this one (a stall reason and occupancy into
  /// idle issue slots; idle issue slots capped by a pipe into that pipe's finding): ncu's rules
  /// about them attach here.
  std::vector<std::string> merged_ids{};
  /// The gain used for ranking: capped when capped.
  double ranked_pct() const { return capped_pct.value_or(gain_pct); }
};

/// A finding that was not formed: a ratio it rests on had a zero or missing input.
struct NotMeasured {
  std::string id;     ///< the finding's id ("uncoalesced-loads")
  std::string title;  ///< its title
  std::string why;    ///< "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio is 0; ..."
};

/// The verdict for one profiled kernel launch.
struct Verdict {
  int id = -1;             ///< ncu launch ID
  std::string kernel;      ///< full kernel name
  double gpu_time_ns = 0;  ///< gpu__time_duration.sum in ns (NaN when missing)
  Bottleneck cls = Bottleneck::NotClassified;
  std::string limiter;                ///< DRAM / L1 / L2, the busiest pipe, the occupancy limiter, or the latency cause
  std::string summary;                ///< one sentence: class, limiter and the deciding numbers
  std::vector<EvidenceRow> evidence;  ///< the class's conditions (and causes), in check order
  std::vector<SignalRow> signals;     ///< every row of the seed's secondary-signal table
  std::vector<std::string> next_sections;    ///< ncu report sections to read next
  std::vector<std::string> missing_metrics;  ///< catalog metrics absent or n/a for this kernel
  std::vector<std::string> not_concluded;    ///< conclusions not drawn, each naming the metrics it lacked
  std::string leading_stalls;  ///< the leading stall reasons when they explain the limiter or a finding ("" otherwise)
  std::vector<Finding> findings;  ///< what to fix first, largest (capped) gain first
  std::string findings_note;      ///< how the gains were capped, or why not
  /// Findings below threshold::kNegligibleGainPct (after the cap), largest first: one line, not ranked.
  std::vector<Finding> negligible;
  std::vector<NotMeasured> not_measured;  ///< findings not formed for a zero or missing ratio input
  std::optional<Efficiency> efficiency;   ///< implementation efficiency (busiest unit)
  std::vector<UnitLoad> units;            ///< every collected unit, busiest first (limiter.hpp); front = limiter
  std::vector<NcuRuleResult> ncu_rules;   ///< ncu's own rule results for this launch (empty: none in the report)
  std::vector<NcuRuleResult> ncu_only;    ///< those with an estimate that no kprof finding matches
  std::string ncu_rules_note;             ///< why ncu's rule results are absent ("" when shown)
};

/// The verdict for a call (all kernels of one report / one `solve` call).
struct CallVerdict {
  std::vector<Verdict> kernels;  ///< one per profiled launch, report order
  int leading = -1;              ///< index into `kernels` of the launch that leads the call, -1 if none
  std::string leading_name;      ///< kernel name with the most total GPU time (summed over its launches)
  double total_gpu_time_ns = 0;  ///< sum of gpu__time_duration.sum over launches that have it
  double leading_share_pct = 0;  ///< the leading kernel name's share of total GPU time, %
  /// The call's time bound against kprof's measured kernel time (profile, run); unset for a
  /// report analysed alone (an ncu report does not record the buffers).
  std::optional<TimeBound> bound;
  /// The leading launch's bound as executed (its own DRAM bytes and executed FLOPs at ncu's
  /// peaks, against its gpu__time_duration.sum): known from the report alone, `kprof analyze` too.
  std::optional<TimeBound> implementation_bound;
  std::optional<WorkModel> work;     ///< the least work the bound used
  std::optional<Ceilings> ceilings;  ///< the GPU's ceilings as the bound used them
  std::optional<ClockCheck> clocks;  ///< kprof's timing against ncu's measurement (profile, run)
  /// The call's class: the leading kernel's (NotClassified when there is none).
  Bottleneck cls() const {
    return leading >= 0 ? kernels[static_cast<size_t>(leading)].cls : Bottleneck::NotClassified;
  }
};

}  // namespace kprof
