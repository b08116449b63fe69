#include "stages/analysis/finding_catalog.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace kprof {

namespace {

constexpr CauseGroup kUnit = CauseGroup::UnitWork;
constexpr CauseGroup kIssue = CauseGroup::IssueHeadroom;

/// The catalog. Titles and sections are the report's text; the ncu rules are those of Nsight
/// Compute's rule set (section files' rules: UncoalescedGlobalAccess, MemoryCacheAccessPattern,
/// SharedMemoryConflicts, UncoalescedSharedAccess, ThreadDivergence, CPIStall,
/// IssueSlotUtilization, AchievedOccupancy, TheoreticalOccupancy). LocalMemory comes before the
/// uncoalesced rows: a MemoryCacheAccessPattern result about local memory is matched first.
const std::vector<FindingRow>& rows() {
  static const std::vector<FindingRow> r = {
      {FindingId::LocalMemory,
       "local-memory",
       "Local-memory traffic (register spills or local arrays)",
       "Memory Workload Analysis",
       "memory",
       {{"MemoryCacheAccessPattern", "local"}},
       3,
       kUnit,
       {"spill"},
       {"Memory Workload Analysis"},
       ""},
      {FindingId::UncoalescedLoads,
       "uncoalesced-loads",
       "Uncoalesced global loads",
       "Memory Workload Analysis Tables; Source Counters (the lines with excessive sectors)",
       "memory",
       {{"UncoalescedGlobalAccess", ""}, {"MemoryCacheAccessPattern", "global load"}},
       3,
       kUnit,
       {"uncoalesced-loads"},
       {"Memory Workload Analysis Tables", "Source Counters"},
       ""},
      {FindingId::UncoalescedStores,
       "uncoalesced-stores",
       "Uncoalesced global stores",
       "Memory Workload Analysis Tables; Source Counters (the lines with excessive sectors)",
       "memory",
       {{"MemoryCacheAccessPattern", "global store"}},
       3,
       kUnit,
       {"uncoalesced-stores"},
       {"Memory Workload Analysis Tables", "Source Counters"},
       ""},
      {FindingId::BankConflicts,
       "bank-conflicts",
       "Shared-memory bank conflicts",
       "Memory Workload Analysis Tables; Source Counters",
       "shared",
       {{"SharedMemoryConflicts", ""}, {"UncoalescedSharedAccess", ""}},
       3,
       kUnit,
       {"bank-conflicts"},
       {"Memory Workload Analysis Tables"},
       ""},
      {FindingId::GlobalReloads,
       "global-reloads",
       "Reloads served by L1 (reused global data loaded again and again)",
       "Memory Workload Analysis; Source Counters",
       "memory",
       {},
       3,
       kUnit,
       {},
       {},
       ""},
      {FindingId::SharedReloads,
       "shared-reloads",
       "Shared-memory loads per FFMA (each shared value feeds too few FFMAs)",
       "Memory Workload Analysis Tables; Instruction Statistics; Source Counters",
       "shared",
       {},
       3,
       kUnit,
       {},
       {},
       ""},
      {FindingId::VectorLoads,
       "vector-loads",
       "Narrow loads (more LSU/MIO instructions than the bytes need)",
       "Instruction Statistics; Memory Workload Analysis Tables; Source Counters (SASS: LDG/LDS width)",
       "shared",
       {},
       3,
       kUnit,
       {},
       {},
       ""},
      {FindingId::L1HitRate,
       "l1-hit-rate",
       "Reused data misses L1",
       "Memory Workload Analysis",
       "memory",
       {},
       3,
       kUnit,
       {"l1-hit"},
       {},
       ""},
      {FindingId::L2HitRate,
       "l2-hit-rate",
       "Reused data misses L2",
       "Memory Workload Analysis",
       "memory",
       {},
       3,
       kUnit,
       {"l2-hit"},
       {},
       ""},
      {FindingId::PipePeak,
       "pipe-peak",
       "",
       "Compute Workload Analysis; Instruction Statistics",
       "compute",
       {},
       3,
       kUnit,
       {},
       {},
       ""},
      {FindingId::AduBarriers,
       "adu-barriers",
       "Barriers saturate the ADU pipe (block barriers, branches, constant loads)",
       "Compute Workload Analysis; Warp State Statistics (barrier stalls); Source Counters",
       "sync",
       {},
       3,
       kUnit,
       {},
       {},
       ""},
      {FindingId::Ilp,
       "ilp",
       "Dependent instructions (too little instruction-level parallelism)",
       "Warp State Statistics (stall wait, short scoreboard); Source Counters",
       "compute",
       {},
       3,
       kUnit,
       {},
       {},
       ""},
      {FindingId::Divergence,
       "divergence",
       "Warp divergence (threads idle in executed instructions)",
       "Warp State Statistics; Source Counters (branch and predication per line)",
       "divergence",
       {{"ThreadDivergence", ""}},
       3,
       kUnit,
       {"branch-efficiency", "divergent-branches", "thread-divergence"},
       {"Warp State Statistics", "Source Counters"},
       ""},
      {FindingId::StallLongScoreboard,
       "stall-long_scoreboard",
       "Long-scoreboard stalls (waiting on global/local memory)",
       "Warp State Statistics; Source Counters (stall sampling per line)",
       "memory",
       {{"CPIStall", "long scoreboard"}},
       2,
       kIssue,
       {"stall-long_scoreboard"},
       {},
       "long_scoreboard"},
      {FindingId::StallBarrier,
       "stall-barrier",
       "Barrier stalls",
       "Warp State Statistics; Source Counters (stall sampling per line)",
       "sync",
       {{"CPIStall", "barrier"}},
       2,
       kIssue,
       {"stall-barrier"},
       {},
       "barrier"},
      {FindingId::IssueSlots,
       "issue-slots",
       "Idle issue slots (few eligible warps)",
       "Scheduler Statistics; Warp State Statistics",
       "",
       {{"IssueSlotUtilization", ""}},
       3,
       kIssue,
       {"issue-slots", "eligible-warps"},
       {},
       ""},
      {FindingId::Occupancy,
       "occupancy",
       "Occupancy",
       "Occupancy; Launch Statistics",
       "",
       {{"AchievedOccupancy", ""}, {"TheoreticalOccupancy", ""}},
       1,
       kIssue,
       {},
       {},
       ""},
  };
  return r;
}

}  // namespace

const std::vector<FindingRow>& finding_rows() { return rows(); }

const FindingRow& finding_row(FindingId id) {
  for (const auto& r : rows())
    if (r.id == id) return r;
  return rows().front();  // unreachable: every FindingId has a row (FindingCatalog test)
}

const FindingRow* find_finding_row(const std::string& key) {
  for (const auto& r : rows())
    if (key == r.key) return &r;
  return nullptr;
}

std::string finding_key(FindingId id) { return finding_row(id).key; }

bool is_finding(const std::string& key, FindingId id) { return key == finding_row(id).key; }

std::optional<FindingId> finding_for_signal(const std::string& signal_id) {
  for (const auto& r : rows())
    for (const char* s : r.signals)
      if (signal_id == s) return r.id;
  return std::nullopt;
}

std::optional<FindingId> finding_for_ncu_rule(const std::string& rule, const std::string& title) {
  const std::string t = to_lower(title);
  for (const auto& r : rows())
    for (const auto& m : r.ncu_rules)
      if (rule == m.rule && (!*m.title_has || t.find(m.title_has) != std::string::npos)) return r.id;
  return std::nullopt;
}

}  // namespace kprof
