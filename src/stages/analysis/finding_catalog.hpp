// The finding catalog: one row per finding kprof forms (its id, title, ncu sections, assess area,
// the ncu rules it maps, its tie rank and its cause group). Every place that asks about a finding
// reads its row; the layer lint (scripts/check_layers.py) rejects a finding id written as a
// string anywhere else, as it rejects raw metric names outside stages/ncu/metrics.hpp.
// A new finding is: a FindingId, a row here, and its builder (findings_memory.cpp /
// findings_compute.cpp) named in findings.cpp's dispatch.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Every finding, one catalog row each (finding_rows()).
enum class FindingId {
  LocalMemory,
  UncoalescedLoads,
  UncoalescedStores,
  BankConflicts,
  GlobalReloads,
  SharedReloads,
  VectorLoads,
  L1HitRate,
  L2HitRate,
  PipePeak,
  AduBarriers,
  Ilp,
  Divergence,
  StallLongScoreboard,
  StallBarrier,
  IssueSlots,
  Occupancy,
};

/// What a finding's gain rests on (docs/METHOD.md "One finding per cause").
enum class CauseGroup {
  UnitWork,       ///< work removed from one unit (Finding::unit): memory, shared memory, a pipe, the SM
  IssueHeadroom,  ///< latency not hidden: capped by the issue headroom (idle issue slots, stalls, occupancy)
};

/// One of ncu's rules (NcuRuleResult::rule) that speaks about a finding; `title_has` narrows it
/// to the results whose title holds that text (lower case), "" for every result of the rule.
struct NcuRuleMatch {
  const char* rule;
  const char* title_has;
};

/// One finding's row.
struct FindingRow {
  FindingId id;
  const char* key;       ///< the JSON id ("bank-conflicts"), stable
  const char* title;     ///< the report's title ("" when the builder words it from the numbers: pipe-peak)
  const char* sections;  ///< the ncu report sections to read for it ("Memory Workload Analysis Tables; ...")
  /// The kind of work it points at, as stages/analysis/assess.cpp names the stall reasons' units:
  /// "memory", "shared", "compute", "sync", "divergence".
  const char* area;
  std::vector<NcuRuleMatch> ncu_rules;  ///< ncu's rules about the same issue (their results attach to it)
  /// Order among findings of equal gain that name no unit (a unit's fix always comes first):
  /// occupancy 1, a stall reason 2, the rest 3 (idle issue slots: a symptom of the others).
  int tie_rank;
  CauseGroup cause;
  std::vector<const char*> signals;          ///< ids of the seed's secondary-signal rows that form it
  std::vector<const char*> signal_sections;  ///< sections a firing signal of it adds to "read next"
  const char* stall_reason;                  ///< ncu's stall reason of a stall finding ("long_scoreboard"); ""
};

/// Every row, in catalog order.
const std::vector<FindingRow>& finding_rows();

/// The row of `id`.
const FindingRow& finding_row(FindingId id);

/// The row whose key is `key`; nullptr for a key no row holds.
const FindingRow* find_finding_row(const std::string& key);

/// The JSON id of `id` ("bank-conflicts").
std::string finding_key(FindingId id);

/// True when `key` is the id of finding `id`.
bool is_finding(const std::string& key, FindingId id);

/// The finding a secondary-signal row forms (its id among a row's `signals`); nullopt for none.
std::optional<FindingId> finding_for_signal(const std::string& signal_id);

/// The finding an ncu rule result speaks about (rule and title against the rows' ncu_rules, in
/// catalog order); nullopt for none.
std::optional<FindingId> finding_for_ncu_rule(const std::string& rule, const std::string& title);

}  // namespace kprof
