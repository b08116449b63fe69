// The profile's one read of its .ncu-rep (flows/assess_context.hpp read_profile_report): the
// metrics, the source counters for the hot lines and ncu's rule results come from a single
// ncu_report read of a real H200 report (tests/data/ncurep, ncu 2025.3.1). Needs PyPI's ncu-report
// (.ci/run installs it); without it those tests skip with the reason (tests/ncu_report_guard.hpp).
#include <gtest/gtest.h>

#include <set>

#include "core/fs.hpp"
#include "flows/assess_context.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/analysis/ncu_rules.hpp"
#include "ncu_report_guard.hpp"

namespace kprof {
namespace {

std::string rep_path(const std::string& name) { return std::string(KPROF_TEST_DATA) + "/ncurep/" + name + ".ncu-rep"; }

std::set<std::string> rule_ids(const std::vector<KernelRuleResults>& rr) {
  std::set<std::string> ids;
  for (const auto& k : rr)
    for (const auto& r : k.rules) ids.insert(r.rule);
  return ids;
}

TEST(ProfileReportRead, OneReadGivesTheHotLinesAndTheRules) {
  KPROF_REQUIRE_NCU_REPORT();
  ProfileReportRead read = read_profile_report(rep_path("uncoalesced_gather"), /*source=*/true, /*rules=*/true);
  ASSERT_TRUE(read.rep) << read.unavailable << read.error;
  ASSERT_TRUE(read.seconds);
  ASSERT_EQ(read.rep->kernels.size(), 1u);
  const NcuRepKernel& k = read.rep->kernels[0];
  // The metrics, from this read: no CSV export is needed (they classify as ncu's own values).
  ASSERT_TRUE(k.metrics.count("gpu__time_duration.sum"));
  EXPECT_EQ(k.metrics.at("gpu__time_duration.sum").unit, "ns");
  // The hot lines, from this read: the planted uncoalesced load is found.
  KernelHotLines h = hot_lines(k, HotLinesOptions{});
  ASSERT_FALSE(h.lines.empty());
  bool uncoalesced = false;
  for (const auto& w : h.waste) uncoalesced = uncoalesced || w.kind == "uncoalesced";
  EXPECT_TRUE(uncoalesced);
  // The rules, from the same read: the rules ncu stored (as exported beside the report).
  auto from_rep = rule_results_from_rep(*read.rep);
  auto exported = read_rule_results(std::string(KPROF_TEST_DATA) + "/ncurep/uncoalesced_gather.rules.json");
  ASSERT_TRUE(exported);
  EXPECT_FALSE(from_rep.empty());
  EXPECT_EQ(rule_ids(from_rep), rule_ids(*exported));
}

TEST(ProfileReportRead, ReadsOnlyWhatTheProfileNeeds) {
  KPROF_REQUIRE_NCU_REPORT();
  // --metrics kprof (no ncu sections, so no rules) with --source: the source counters only.
  ProfileReportRead source_only = read_profile_report(rep_path("bank_conflict"), true, false);
  ASSERT_TRUE(source_only.rep) << source_only.unavailable << source_only.error;
  EXPECT_FALSE(source_only.rep->kernels.at(0).instructions.empty());
  EXPECT_TRUE(source_only.rep->kernels.at(0).rules.empty());
  // --metrics full --no-source: the rules only.
  ProfileReportRead rules_only = read_profile_report(rep_path("bank_conflict"), false, true);
  ASSERT_TRUE(rules_only.rep);
  EXPECT_TRUE(rules_only.rep->kernels.at(0).instructions.empty());
  EXPECT_FALSE(rules_only.rep->kernels.at(0).rules.empty());
  // Neither: the metrics alone (they replace ncu's CSV export), the same for every read.
  ProfileReportRead metrics_only = read_profile_report(rep_path("bank_conflict"), false, false);
  ASSERT_TRUE(metrics_only.rep);
  EXPECT_TRUE(metrics_only.seconds);
  const auto& k = metrics_only.rep->kernels.at(0);
  EXPECT_TRUE(k.instructions.empty() && k.rules.empty());
  ASSERT_TRUE(k.metrics.count("gpu__time_duration.sum"));
  EXPECT_EQ(*k.metrics.at("gpu__time_duration.sum").number,
            *source_only.rep->kernels.at(0).metrics.at("gpu__time_duration.sum").number);
  EXPECT_TRUE(source_only.rep->sass_deferred);  // the SASS text is read for what the reports show
}

TEST(ProfileReportRead, AnUnreadableReportIsRecordedNotThrown) {
  ProfileReportRead read = read_profile_report("/nonexistent/profile.ncu-rep", true, true);
  EXPECT_FALSE(read.rep);
  EXPECT_FALSE(read.error.empty() && read.unavailable.empty());
}

}  // namespace
}  // namespace kprof
