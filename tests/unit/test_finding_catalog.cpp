// The finding catalog (stages/analysis/finding_catalog.hpp): one row per FindingId, unique keys,
// every signal forming one finding, and every finding the analysis forms on the committed H200
// reports has a row (the ids added without one, as ilp and adu-barriers once missed verdict.hpp's
// list, would fail here).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/fs.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/finding_catalog.hpp"

using namespace kprof;

TEST(FindingCatalog, OneRowPerIdWithUniqueKeys) {
  std::set<int> ids;
  std::set<std::string> keys;
  for (const auto& r : finding_rows()) {
    EXPECT_TRUE(ids.insert(static_cast<int>(r.id)).second) << r.key;
    EXPECT_TRUE(keys.insert(r.key).second) << r.key;
    EXPECT_EQ(&finding_row(r.id), &r);
    EXPECT_EQ(find_finding_row(r.key), &r);
    EXPECT_NE(std::string(r.sections), "") << r.key;
    EXPECT_TRUE(r.tie_rank >= 1 && r.tie_rank <= 3) << r.key;
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(FindingId::Occupancy) + 1);  // every enumerator has its row
  EXPECT_EQ(find_finding_row("no-such-finding"), nullptr);
}

TEST(FindingCatalog, SignalsFormOneFindingEach) {
  std::set<std::string> seen;
  for (const auto& r : finding_rows())
    for (const char* s : r.signals) {
      EXPECT_TRUE(seen.insert(s).second) << s << " forms two findings";
      EXPECT_EQ(finding_for_signal(s), r.id);
    }
  EXPECT_EQ(finding_for_signal("thread-divergence"), FindingId::Divergence);
  EXPECT_EQ(finding_for_signal("eligible-warps"), FindingId::IssueSlots);
  EXPECT_EQ(finding_for_signal("spill"), FindingId::LocalMemory);
  EXPECT_FALSE(finding_for_signal("not-a-signal").has_value());
}

TEST(FindingCatalog, StallRowsNameTheirReason) {
  for (const auto& r : finding_rows())
    EXPECT_EQ(std::string(r.stall_reason).empty(), std::string(r.key).rfind("stall-", 0) != 0) << r.key;
  EXPECT_EQ(finding_key(FindingId::StallBarrier),
            "stall-" + std::string(finding_row(FindingId::StallBarrier).stall_reason));
}

TEST(FindingCatalog, EveryFindingFormedOnTheCommittedReportsHasARow) {
  const std::string data = KPROF_TEST_DATA;
  size_t formed = 0;
  for (const char* file : {"/ncu/copy.raw.csv", "/ncu/fma.raw.csv", "/ncu/strided.raw.csv", "/ncu/tiny.raw.csv",
                           "/gemmprog/gemm_v0.raw.csv", "/gemmprog/gemm_v1.raw.csv", "/gemmprog/gemm_v2.raw.csv",
                           "/gemmprog/gemm_v3.raw.csv", "/gemmprog/gemm_v4.raw.csv", "/gemmprog/gemm_v5.raw.csv",
                           "/ncurep/bank_conflict.raw.csv", "/ncurep/divergent.raw.csv", "/ncurep/local_spill.raw.csv",
                           "/ncurep/uncoalesced_gather.raw.csv", "/ncurep/cublas_gemm_4096.raw.csv"}) {
    NcuAnalysis a = analyze_ncu_csv(read_file(data + file));
    for (const auto& v : a.verdict.kernels) {
      for (const auto* list : {&v.findings, &v.negligible})
        for (const auto& f : *list) {
          ++formed;
          EXPECT_NE(find_finding_row(f.id), nullptr) << file << ": " << f.id;
          for (const auto& m : f.merged_ids) EXPECT_NE(find_finding_row(m), nullptr) << file << ": " << m;
        }
      for (const auto& n : v.not_measured) EXPECT_NE(find_finding_row(n.id), nullptr) << file << ": " << n.id;
    }
  }
  EXPECT_GT(formed, 10u);
}
