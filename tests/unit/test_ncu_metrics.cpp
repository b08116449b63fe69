// The metric catalog: every name exists in ncu's full set on an H200 (the fixture headers), the
// list for `ncu --metrics` is complete and filtered by compute capability, and the missing-metric
// helpers see n/a cells and fallbacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/fs.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;

namespace {

MetricTable fixture_table(const std::string& name) {
  return parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/" + name));
}

}  // namespace

TEST(MetricCatalog, EveryNameExistsInTheH200FullSetExport) {
  MetricTable t = fixture_table("copy.raw.csv");
  std::set<std::string> columns(t.columns.begin(), t.columns.end());
  for (const auto& spec : metric_catalog()) {
    EXPECT_TRUE(columns.count(spec.name)) << spec.name << " is not in ncu's full set on the H200";
    if (spec.fallback) EXPECT_TRUE(columns.count(spec.fallback)) << spec.fallback;
  }
}

TEST(MetricCatalog, EntriesAreCompleteAndUnique) {
  std::set<std::string> names;
  for (const auto& spec : metric_catalog()) {
    EXPECT_TRUE(names.insert(spec.name).second) << "duplicate " << spec.name;
    EXPECT_FALSE(std::string(spec.label).empty()) << spec.name;
    EXPECT_FALSE(std::string(spec.used_by).empty()) << spec.name;
  }
  // The metrics the task names must be there.
  for (const char* n :
       {metric::kSmSol,          metric::kMemSol,           metric::kDramPct,        metric::kL1Pct,
        metric::kL2Pct,          metric::kAchievedOcc,      metric::kTheoreticalOcc, metric::kLimitRegisters,
        metric::kLimitShared,    metric::kLimitWarps,       metric::kLimitBlocks,    metric::kWaves,
        metric::kIssueActive,    metric::kEligibleWarps,    metric::kLdSectors,      metric::kLdRequests,
        metric::kStSectors,      metric::kStRequests,       metric::kL1Hit,          metric::kL2Hit,
        metric::kBankConflicts,  metric::kSharedWavefronts, metric::kLocalLdSectors, metric::kBranchUniformPct,
        metric::kThreadsPerInst, metric::kPipeFma,          metric::kPipeTensor,     metric::kPipeLsu,
        metric::kPipeAlu,        metric::kDramRead,         metric::kDramWrite,      metric::kDuration,
        metric::kSmFreq,         metric::kDramFreq})
    EXPECT_NE(find_metric(n), nullptr) << n;
  for (const char* reason :
       {"long_scoreboard", "barrier", "mio_throttle", "short_scoreboard", "math_pipe_throttle", "wait"})
    EXPECT_NE(std::find(stall_reasons().begin(), stall_reasons().end(), reason), stall_reasons().end()) << reason;
  EXPECT_GE(tensor_op_metrics().size(), 4u);
}

TEST(MetricCatalog, NcuMetricNamesFollowTheCatalogAndFilterByArch) {
  auto all = ncu_metric_names();
  EXPECT_EQ(all.size(), metric_catalog().size());
  EXPECT_EQ(all.front(), metric::kSmSol);
  auto ampere = ncu_metric_names(80);
  EXPECT_LT(ampere.size(), all.size());
  EXPECT_EQ(std::find(ampere.begin(), ampere.end(), std::string(metric::kLimitBarriers)), ampere.end());
  EXPECT_EQ(ncu_metric_names(90).size(), all.size());
}

TEST(MetricCatalog, FullExportHasEveryRequiredMetric) {
  for (const char* f : {"copy.raw.csv", "fma.raw.csv", "tiny.raw.csv", "strided.raw.csv"}) {
    MetricTable t = fixture_table(f);
    EXPECT_TRUE(missing_required_metrics(t.kernels[0]).empty()) << f;
    EXPECT_TRUE(missing_catalog_metrics(t.kernels[0]).empty()) << f;
  }
}

TEST(MetricCatalog, MissingOrNaRequiredMetricsAreReported) {
  MetricTable t = fixture_table("copy.raw.csv");
  KernelMetrics k = t.kernels[0];
  k.metrics.erase(metric::kSmSol);
  k.metrics[metric::kAchievedOcc].value.reset();  // an "n/a" cell
  auto missing = missing_required_metrics(k);
  EXPECT_EQ(missing, (std::vector<std::string>{metric::kSmSol, metric::kAchievedOcc}));
}

TEST(MetricCatalog, FallbackIsReadWhenThePrimaryNameIsAbsent) {
  MetricTable basic = fixture_table("copy.basic-like.raw.csv");
  const KernelMetrics& k = basic.kernels[0];
  EXPECT_FALSE(k.has_column(metric::kL1Pct));
  std::string used;
  auto v = catalog_value(k, metric::kL1Pct, &used);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(used, "l1tex__throughput.avg.pct_of_peak_sustained_active");
  EXPECT_NEAR(*v, 29.39276, 1e-4);
  EXPECT_TRUE(missing_required_metrics(k).empty());
  auto lacking = missing_catalog_metrics(k);
  EXPECT_NE(std::find(lacking.begin(), lacking.end(), std::string(metric::kEligibleWarps)), lacking.end());
  EXPECT_EQ(std::find(lacking.begin(), lacking.end(), std::string(metric::kL1Pct)), lacking.end());
}
