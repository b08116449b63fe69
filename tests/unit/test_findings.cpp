// Ranked findings with estimated gains (stages/analysis/findings.hpp) and ncu's own rule results beside
// them (stages/analysis/ncu_rules.hpp), on the real H200 reports of the planted kernels
// (tests/data/ncurep: *.raw.csv and *.rules.json derived by scripts/ncurep_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>

#include "stages/ncu/metrics.hpp"

#include "stages/analysis/analyze.hpp"
#include "stages/analysis/findings.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "unit/test_env_util.hpp"
#include "ncu_report_guard.hpp"

using namespace kprof;

namespace {

std::string rep(const std::string& name) { return std::string(KPROF_TEST_DATA) + "/ncurep/" + name; }

/// analyze of a planted report with its ncu rule results, as `kprof analyze` does it.
NcuAnalysis planted(const std::string& name) {
  AnalysisContext ctx;
  ctx.rules = read_rule_results(rep(name + ".raw.csv"), &ctx.rules_note);
  return analyze_ncu_csv(read_file(rep(name + ".raw.csv")), ctx);
}

const Finding* find(const Verdict& v, const std::string& id) {
  for (const auto& f : v.findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

TEST(Findings, ThePlantedDefectRanksFirst) {
  const std::pair<const char*, const char*> cases[] = {{"uncoalesced_gather", "uncoalesced-loads"},
                                                       {"bank_conflict", "bank-conflicts"},
                                                       {"local_spill", "local-memory"},
                                                       {"divergent", "divergence"}};
  for (const auto& [report, id] : cases) {
    NcuAnalysis a = planted(report);
    const Verdict& v = a.verdict.kernels.at(0);
    ASSERT_FALSE(v.findings.empty()) << report;
    EXPECT_EQ(v.findings.front().id, id) << report << ": first is " << v.findings.front().id;
  }
}

TEST(Findings, GainsFollowNcusFormulasOnRealReports) {
  // uncoalesced gather: at L2 (the limiter, 91.26%) ncu's form (1 - 4/32) x (1 - 0.0166% L1 hit)
  // x L2 91.26% = 79.8% (ncu's L2 access pattern: 79.8%), capped at 100% - issue slots 37.8%:
  // the fix leaves the instructions as they are, so their issue still takes that share.
  const Verdict u = planted("uncoalesced_gather").verdict.kernels.at(0);
  const KernelMetrics uk = planted("uncoalesced_gather").table.kernels.at(0);
  ASSERT_TRUE(find(u, "uncoalesced-loads"));
  double l2_form = (1 - 4.0 / 32) * (1 - *uk.number(metric::kL1Hit) / 100) * *uk.number(metric::kL2Pct);
  EXPECT_NEAR(l2_form, 79.84, 0.05);
  EXPECT_NEAR(find(u, "uncoalesced-loads")->gain_pct, std::min(l2_form, 100 - *uk.number(metric::kIssueActive)), 1e-6);
  EXPECT_NE(find(u, "uncoalesced-loads")->formula.find("(1 - 4/32 B used per sector)"), std::string::npos);
  EXPECT_NE(find(u, "uncoalesced-loads")->formula.find("capped at 100% - Issue slots"), std::string::npos);
  // bank conflicts: 29,386,203 conflict wavefronts of all L1/TEX work (1,048,576 global sectors +
  // 33,846,747 shared wavefronts) x L1/TEX 82.24% (elapsed) = 69.3% (ncu, loads only: 75.8%)
  const Verdict b = planted("bank_conflict").verdict.kernels.at(0);
  EXPECT_NEAR(find(b, "bank-conflicts")->gain_pct, 29386203.0 / (1048576 + 33846747) * 82.2441, 0.05);
  // divergence: (1 - 5.05/32) x SM SOL 92.31% = 77.7% (ncu ThreadDivergence: 77.7%)
  const Verdict d = planted("divergent").verdict.kernels.at(0);
  EXPECT_NEAR(find(d, "divergence")->gain_pct, 77.74, 0.05);
  // local memory: 302,015,111 / 343,433,863 L1 sectors x memory SOL 55.24% = 48.6%
  const Verdict l = planted("local_spill").verdict.kernels.at(0);
  EXPECT_NEAR(find(l, "local-memory")->gain_pct, 48.58, 0.1);
}

TEST(Findings, NcusEstimateIsShownBesideAndCompared) {
  const Verdict b = planted("bank_conflict").verdict.kernels.at(0);
  const Finding* f = find(b, "bank-conflicts");
  ASSERT_TRUE(f);
  ASSERT_FALSE(f->ncu.empty());
  // kprof 69.3% against ncu's largest, UncoalescedSharedAccess 82.7%: over 10 points, so "differ"
  // with the reason the two estimates part.
  EXPECT_EQ(f->agreement.rfind("differ", 0), 0u) << f->agreement;
  EXPECT_NE(f->agreement.find("ncu counts loads and stores apart"), std::string::npos) << f->agreement;
  EXPECT_FALSE(b.ncu_rules.empty());
  const Verdict l = planted("local_spill").verdict.kernels.at(0);
  const Finding* spill = find(l, "local-memory");
  ASSERT_TRUE(spill);
  EXPECT_EQ(spill->agreement.rfind("differ", 0), 0u) << spill->agreement;
  // ncu's estimates without a kprof finding are kept ("ncu only"): the L2 compression rule.
  bool compression = false;
  for (const auto& r : l.ncu_only) compression = compression || r.rule == "MemoryL2Compression";
  EXPECT_TRUE(compression);
}

TEST(Findings, WithoutABoundGainsAreNotCappedAndSaySo) {
  const Verdict b = planted("bank_conflict").verdict.kernels.at(0);
  EXPECT_FALSE(b.findings.front().capped_pct);
  EXPECT_NE(b.findings_note.find("not capped"), std::string::npos) << b.findings_note;
}

TEST(Findings, CapByTheHeadroomAndReRank) {
  std::vector<Finding> fs(2);
  fs[0].id = "a";
  fs[0].gain_pct = 20;
  fs[1].id = "b";
  fs[1].gain_pct = 60;
  cap_findings(fs, 30);
  EXPECT_EQ(fs[0].id, "b");
  ASSERT_TRUE(fs[0].capped_pct);
  EXPECT_DOUBLE_EQ(*fs[0].capped_pct, 30);
  EXPECT_FALSE(fs[1].capped_pct);
  cap_findings(fs, -1);  // no headroom known: unchanged
  EXPECT_DOUBLE_EQ(fs[0].ranked_pct(), 30);
}

TEST(Findings, AWellBehavedStreamHasNoMemoryFinding) {
  NcuAnalysis a = analyze_ncu_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  const Verdict& v = a.verdict.kernels.at(0);
  EXPECT_FALSE(find(v, "uncoalesced-loads"));
  EXPECT_FALSE(find(v, "l1-hit-rate"));
  EXPECT_FALSE(find(v, "l2-hit-rate"));
}

TEST(NcuRules, MappingOfRulesToFindings) {
  auto id = [](const char* rule, const char* title) {
    NcuRuleResult r;
    r.rule = rule;
    r.title = title;
    return finding_id_for_rule(r);
  };
  EXPECT_EQ(id("UncoalescedGlobalAccess", ""), "uncoalesced-loads");
  EXPECT_EQ(id("MemoryCacheAccessPattern", "L2 Global Load Access Pattern"), "uncoalesced-loads");
  EXPECT_EQ(id("MemoryCacheAccessPattern", "L1TEX Global Store Access Pattern"), "uncoalesced-stores");
  EXPECT_EQ(id("MemoryCacheAccessPattern", "L1TEX Local Load Access Pattern"), "local-memory");
  EXPECT_EQ(id("SharedMemoryConflicts", "Shared Load Bank Conflicts"), "bank-conflicts");
  EXPECT_EQ(id("ThreadDivergence", ""), "divergence");
  EXPECT_EQ(id("CPIStall", "Long Scoreboard Stalls"), "stall-long_scoreboard");
  EXPECT_EQ(id("CPIStall", "Mio Throttle Stalls"), "");
  EXPECT_EQ(id("TheoreticalOccupancy", ""), "occupancy");
  EXPECT_EQ(id("MemoryL2Compression", "Low Compression Rate"), "");
}

TEST(NcuRules, ReadingAndItsFailures) {
  KPROF_REQUIRE_NCU_REPORT();
  std::string why;
  auto rules = read_rule_results(rep("divergent.rules.json"), &why);
  ASSERT_TRUE(rules);
  ASSERT_EQ(rules->size(), 1u);
  bool divergence = false;
  for (const auto& r : rules->at(0).rules)
    if (r.rule == "ThreadDivergence") divergence = r.speedup_pct && *r.speedup_pct > 77 && r.speedup_type == "global";
  EXPECT_TRUE(divergence);
  // A .ncu-rep is read through ncu_report (stages/ncu/ncu_rep.hpp): the same rules as the JSON exported
  // from it; with ncu_report turned off, nullopt and why.
  set_rule_result_reader({});
  auto direct = read_rule_results(rep("divergent.ncu-rep"), &why);
  ASSERT_TRUE(direct) << why;
  ASSERT_EQ(direct->size(), 1u);
  ASSERT_EQ(direct->at(0).rules.size(), rules->at(0).rules.size());
  for (size_t i = 0; i < direct->at(0).rules.size(); ++i) {
    EXPECT_EQ(direct->at(0).rules[i].rule, rules->at(0).rules[i].rule);
    EXPECT_EQ(direct->at(0).rules[i].speedup_type, rules->at(0).rules[i].speedup_type);
    EXPECT_EQ(direct->at(0).rules[i].speedup_pct.has_value(), rules->at(0).rules[i].speedup_pct.has_value());
  }
  why.clear();
  {
    kprof::testutil::ScopedEnv off("KPROF_NCU_REPORT", "off");
    EXPECT_FALSE(read_rule_results(rep("divergent.ncu-rep"), &why));
  }
  EXPECT_NE(why.find("ncu_report"), std::string::npos) << why;
  set_rule_result_reader([](const std::string& p) -> std::optional<std::vector<KernelRuleResults>> {
    return std::vector<KernelRuleResults>{{0, p, {}}};
  });
  auto via = read_rule_results(rep("divergent.ncu-rep"), &why);
  ASSERT_TRUE(via);
  EXPECT_EQ(via->at(0).kernel, rep("divergent.ncu-rep"));
  set_rule_result_reader({});
  // A CSV without rules beside it, and malformed JSON.
  EXPECT_FALSE(read_rule_results(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv", &why));
  EXPECT_THROW(parse_rule_results_json(nlohmann::json::parse(R"({"kernel": "k"})")), Error);
  EXPECT_THROW(parse_rule_results_json(nlohmann::json::parse(R"({"rules": [{"title": "x"}]})")), Error);
}
