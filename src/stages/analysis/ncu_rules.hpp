// Nsight Compute's own guided-analysis rule results (its "Est. Speedup" per finding), read from a
// report that holds them, and how kprof shows them beside its own findings. kprof's default
// metric list makes ncu apply no rules; `--metrics sections|full` (or a report collected with
// sections) has them.
//
// Where they come from: a .ncu-rep is read with Nsight Compute's Python module `ncu_report`
// (stages/ncu/ncu_rep.hpp, the same reader as the hot lines); tests may put another RuleResultReader in
// its place with set_rule_result_reader(). A JSON file in kprof's exchange format
// (parse_rule_results_json: what scripts/ncurep_fixtures.py writes from ncu_report's
// IAction.rule_results_as_dicts()) is read without Python.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "stages/ncu/ncu_rep.hpp"

namespace kprof {

/// One rule message with its estimated speedup, as ncu reports it.
struct NcuRuleResult {
  std::string rule;                   ///< rule identifier ("SharedMemoryConflicts", "CPIStall", ...)
  std::string name;                   ///< rule name ("Shared Memory Conflicts")
  std::string section;                ///< ncu section identifier ("MemoryWorkloadAnalysis_Tables")
  std::string title;                  ///< message title ("Shared Load Bank Conflicts"), may be empty
  std::string message;                ///< the message text (ncu's @section/@url markup kept)
  int type = 0;                       ///< ncu message type: 1 info/OK, 2 optimization, 3 warning, ...
  std::optional<double> speedup_pct;  ///< "Est. Speedup", % of the kernel's time (global) or of a unit's (local)
  std::string speedup_type;           ///< "global", "local" or "" (ncu's SpeedupType)
};

/// The rule results of one profiled kernel launch.
struct KernelRuleResults {
  int index = 0;       ///< launch index in the report (ncu's "ID" column)
  std::string kernel;  ///< kernel name as ncu_report gives it
  std::vector<NcuRuleResult> rules;
};

/// Parses kprof's rule-result JSON: one object {"kernel": name, "rules": [{rule, name, section,
/// title, message, type, speedup_pct?, speedup_type?}, ...]} or an array of them (launch order,
/// optional "index"). Throws usage_error (exit 2) naming what is malformed.
std::vector<KernelRuleResults> parse_rule_results_json(const nlohmann::json& j);

/// Reads the rule results of every launch in a .ncu-rep; nullopt when the report cannot be read.
using RuleResultReader = std::function<std::optional<std::vector<KernelRuleResults>>(const std::string& report)>;

/// Replaces the reader read_rule_results() uses for a .ncu-rep (tests); an empty function restores
/// the default, read_ncu_rep through ncu_report (rules only).
void set_rule_result_reader(RuleResultReader reader);

/// The rule results of every launch of a report already read through ncu_report (ncu's
/// SpeedupType 1 -> "local", 2 -> "global").
std::vector<KernelRuleResults> rule_results_from_rep(const NcuRep& rep);

/// The rule results of `path`: a ".json" file is parsed with parse_rule_results_json; any other
/// path (a .ncu-rep) goes to the registered reader; a CSV export `X.raw.csv` or `X.csv` uses
/// `X.rules.json` beside it when present. nullopt when nothing can read them (`why` says what).
std::optional<std::vector<KernelRuleResults>> read_rule_results(const std::string& path, std::string* why = nullptr);

/// The finding id (findings.hpp) an ncu rule result speaks about, or "" when kprof has no
/// finding of that kind. UncoalescedGlobalAccess and MemoryCacheAccessPattern "Global Load" ->
/// uncoalesced-loads, "... Store" -> uncoalesced-stores, "Local" -> local-memory;
/// SharedMemoryConflicts, UncoalescedSharedAccess -> bank-conflicts; ThreadDivergence ->
/// divergence; CPIStall "Long Scoreboard Stalls" -> stall-long_scoreboard, "Barrier Stalls" ->
/// stall-barrier; IssueSlotUtilization -> issue-slots; AchievedOccupancy,
/// TheoreticalOccupancy -> occupancy.
std::string finding_id_for_rule(const NcuRuleResult& r);

}  // namespace kprof
