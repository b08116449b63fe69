// What to fix first: every secondary signal that fires becomes a finding with an estimated gain
// (the fraction of the kernel's time it could save) and the formula that gives it, anchored on
// Nsight Compute's published rule formulas; findings are ranked by that gain, capped by the
// headroom to the time bound (gains do not add up), and each names the ncu section to read and
// one next step. docs/CLASSIFICATION.md "Findings from the limiter" lists every formula.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages/analysis/ncu_rules.hpp"
#include "stages/analysis/verdict.hpp"
#include "stages/ncu/metric_table.hpp"

namespace kprof {

/// The findings of one kernel from its firing signals (`signals`, as evaluate_signals gives
/// them) and its metrics, largest gain first. `cls` adds the occupancy finding for an
/// Occupancy-Bound kernel; `footprint` (bytes the call's buffers hold) feeds the reuse of the
/// hit-rate findings (load_reuse). Uncapped; see cap_findings. A firing signal whose formula
/// lacks an input gives no finding.
/// One rule for every finding (Finding::ratio_inputs): a finding whose ratio has a zero or
/// missing input is not formed; it goes to `not_measured` (when given) with the reason, which
/// names the kernel's asynchronous copies (LDGSTS, TMA) when it made any. Latency findings with
/// the same gain (idle issue slots, a stall reason, occupancy: one root, the issue headroom) are
/// merged into one, their evidence joined. Then one finding per cause: a finding whose gain is
/// capped by a unit that another finding names (Finding::capped_by == its unit) is merged into
/// that one (docs/METHOD.md "One finding per cause"). The ILP finding (ilp) joins for
/// Compute-Bound kernels.
std::vector<Finding> findings_for_kernel(const KernelMetrics& k, const std::vector<SignalRow>& signals, Bottleneck cls,
                                         std::optional<double> footprint = std::nullopt,
                                         std::vector<NotMeasured>* not_measured = nullptr);

/// Moves the findings whose ranked gain is below threshold::kNegligibleGainPct (1% of the
/// kernel's time) from `v.findings` to `v.negligible`, keeping both in gain order.
void split_negligible(Verdict& v);

/// "negligible (< 1% each): Narrow loads 0.0285%, ..." ("" when there are none).
std::string negligible_line(const Verdict& v);

/// Caps each gain at `headroom_pct` (the share of the kernel's time above the time bound; gains
/// cannot exceed it and do not add up) and re-sorts. A negative headroom leaves them uncapped.
void cap_findings(std::vector<Finding>& findings, double headroom_pct);

/// Attaches ncu's rule results to the findings they speak about (finding_id_for_rule) and sets
/// `agreement` (within kAgreePts of ncu's largest estimate: "agree"). Returns the rule results
/// with a speedup estimate that no kprof finding matches ("ncu only").
std::vector<NcuRuleResult> attach_rule_results(std::vector<Finding>& findings, const std::vector<NcuRuleResult>& rules);

/// kprof's gain and ncu's "agree" when they differ by at most this many percentage points.
inline constexpr double kAgreePts = 10.0;

}  // namespace kprof
