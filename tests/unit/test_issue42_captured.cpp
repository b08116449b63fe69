// Issue 42 on the kernels written for it (tests/data/planted/planted.cu), once their H200 reports
// are captured (tests/gpu/run.sh capture, then scripts/ncurep_fixtures.py; docs/gpu-runs.md "To run:
// issue 42"). Each test skips, saying so, until its report is committed under tests/data/ncurep.
#include <gtest/gtest.h>

#include "core/fs.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/analysis/known_gpus.hpp"

using namespace kprof;

namespace {

/// The leading verdict of tests/data/ncurep/NAME.raw.csv analysed with the committed GPU
/// ceilings, or nullopt when the report is not captured yet.
std::optional<NcuAnalysis> captured(const std::string& name) {
  std::string path = std::string(KPROF_TEST_DATA) + "/ncurep/" + name + ".raw.csv";
  if (!path_exists(path)) return std::nullopt;
  AnalysisContext ctx;
  ctx.known_gpus = committed_gpu_ceilings();
  return analyze_ncu_csv(read_file(path), ctx);
}

const Verdict& lead(const NcuAnalysis& a) { return a.verdict.kernels.at(static_cast<size_t>(a.verdict.leading)); }

#define KPROF_REQUIRE_CAPTURED(a, name) \
  auto a = captured(name);              \
  if (!a) GTEST_SKIP() << name << ".raw.csv not captured yet: tests/gpu/run.sh capture (docs/gpu-runs.md)"

}  // namespace

TEST(Issue42Captured, BarrierKernelIsComputeBoundOnTheAduPipeWithTheBarrierFindingFirst) {
  KPROF_REQUIRE_CAPTURED(a, "barrier_exchange");
  const Verdict& v = lead(*a);
  EXPECT_EQ(v.cls, Bottleneck::ComputeBound) << v.summary;
  EXPECT_EQ(v.limiter, "ADU pipe, barriers") << v.summary;
  ASSERT_FALSE(v.findings.empty());
  EXPECT_EQ(v.findings.front().id, "adu-barriers") << v.findings.front().title;
}

TEST(Issue42Captured, LdgstsKernelHasNoFindingFromLdgRatios) {
  KPROF_REQUIRE_CAPTURED(a, "ldgsts_copy");
  const Verdict& v = lead(*a);
  for (const auto& f : v.findings) EXPECT_NE(f.id, "uncoalesced-loads") << f.formula;
}

TEST(Issue42Captured, EmptyAndOneBlockKernelsAreBoundByTheFloor) {
  for (const char* name : {"empty_kernel", "one_block"}) {
    KPROF_REQUIRE_CAPTURED(a, name);
    ASSERT_TRUE(a->verdict.implementation_bound);
    const TimeBound& b = *a->verdict.implementation_bound;
    EXPECT_TRUE(b.floor_binds) << name << ": " << implementation_bound_sentence(b);
    ASSERT_TRUE(b.max_speedup);
    EXPECT_LT(*b.max_speedup, 10.0) << name;
  }
}

TEST(Issue42Captured, FmaChainGetsTheIlpFinding) {
  KPROF_REQUIRE_CAPTURED(a, "fma_chain");
  const Verdict& v = lead(*a);
  bool ilp = false;
  for (const auto& f : v.findings) ilp = ilp || f.id == "ilp";
  EXPECT_TRUE(ilp) << v.summary;
}
