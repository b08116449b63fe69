// The bottleneck classifier on the real H200 exports (each must give the class the fixtures
// README states) and on synthetic metric sets that sit on each threshold.
#include <gtest/gtest.h>

#include <cmath>

#include "stages/analysis/classify.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/analysis/thresholds.hpp"
#include "core/fs.hpp"
#include "stages/ncu/metrics.hpp"

using namespace kprof;
namespace m = kprof::metric;

namespace {

KernelMetrics fixture_kernel(const std::string& name) {
  return parse_ncu_raw_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/" + name)).kernels.at(0);
}

const EvidenceRow* find_row(const Verdict& v, const std::string& check_prefix) {
  for (const auto& e : v.evidence)
    if (e.check.rfind(check_prefix, 0) == 0) return &e;
  return nullptr;
}

const SignalRow& signal(const Verdict& v, const std::string& symptom_prefix) {
  for (const auto& s : v.signals)
    if (s.symptom.rfind(symptom_prefix, 0) == 0) return s;
  throw std::runtime_error("no signal " + symptom_prefix);
}

/// A synthetic kernel with full SOL, occupancy and launch metrics.
KernelMetrics synthetic(double sm, double mem, double theoretical = 100, double achieved = 90,
                        double grid = 132 * 8 * 4, double reg_limit = 16) {
  KernelMetrics k;
  k.id = 0;
  k.name = "k_synth(float *)";
  k.set(m::kSmSol, sm, "%");
  k.set(m::kMemSol, mem, "%");
  k.set(m::kDramPct, mem, "%");
  k.set(m::kL1Pct, mem / 2, "%");
  k.set(m::kL2Pct, mem / 3, "%");
  k.set(m::kTheoreticalOcc, theoretical, "%");
  k.set(m::kAchievedOcc, achieved, "%");
  k.set(m::kLimitRegisters, reg_limit, "block");
  k.set(m::kLimitShared, 32, "block");
  k.set(m::kLimitWarps, 8, "block");
  k.set(m::kLimitBlocks, 32, "block");
  k.set(m::kGridSize, grid);
  k.set(m::kSmCount, 132, "SM");
  k.set(m::kDuration, 1000, "ns");
  // Latency hiding failed (0.5 eligible warps per scheduler, 20% issue): occupancy can bind.
  k.set(m::kEligibleWarps, 0.5, "warp");
  k.set(m::kIssueActive, 20, "%");
  return k;
}

}  // namespace

TEST(ClassifyFixtures, CopyIsMemoryBoundOnDramAlthoughL2IsHigher) {
  Verdict v = classify_kernel(fixture_kernel("copy.raw.csv"));
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);
  EXPECT_EQ(v.limiter, "DRAM");  // lts__throughput 86.7% > DRAM 80.9% = memory SOL
  const EvidenceRow* unit = find_row(v, "Memory unit");
  ASSERT_NE(unit, nullptr);
  EXPECT_NE(unit->value.find("DRAM 80.9%"), std::string::npos) << unit->value;
  EXPECT_NE(unit->value.find("L2 86.7%"), std::string::npos) << unit->value;
  EXPECT_NE(unit->value.find("L1 28.1%"), std::string::npos) << unit->value;
  EXPECT_EQ(v.next_sections.front(), "Memory Workload Analysis");
  EXPECT_TRUE(v.not_concluded.empty());
  const SignalRow& ld = signal(v, "Global load efficiency");
  EXPECT_EQ(ld.state, SignalState::Clear);  // float4 loads: 16 sectors/request is the ideal
  EXPECT_NE(ld.value.find("16 sectors/request (ideal 16 for the 512 bytes"), std::string::npos) << ld.value;
}

TEST(ClassifyFixtures, FmaIsComputeBoundOnTheFmaPipe) {
  KernelMetrics k = fixture_kernel("fma.raw.csv");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::ComputeBound);
  EXPECT_EQ(v.limiter, "FMA pipe");
  EXPECT_EQ(v.next_sections.front(), "Compute Workload Analysis");
  // ncu's own roofline rule says "achieved 55% of this device's FP32 peak" for this run.
  Roofline r = roofline_point(k);
  ASSERT_TRUE(r.fp32_peak_pct.has_value());
  EXPECT_NEAR(*r.fp32_peak_pct, 55.0, 1.0);
  EXPECT_GT(*r.intensity, 100.0);  // thousands of FLOPs per DRAM byte
}

TEST(ClassifyFixtures, TinyIsLatencyBoundWithWavesBelowOne) {
  KernelMetrics k = fixture_kernel("tiny.raw.csv");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::LatencyBound);
  EXPECT_NE(v.limiter.find("too few blocks"), std::string::npos) << v.limiter;
  const EvidenceRow* waves = find_row(v, "Waves per SM < 1");
  ASSERT_NE(waves, nullptr);
  EXPECT_TRUE(waves->holds);
  // ncu prints 0.00 waves; kprof computes grid / (SMs x blocks per SM) = 1 / (132 x 16).
  EXPECT_NEAR(*waves_per_sm(k), 1.0 / (132 * 16), 1e-9);
  // Achieved is far below theoretical, but one block cannot fill a wave: not Occupancy-Bound.
  EXPECT_TRUE(find_row(v, "Achieved occupancy far below")->holds);
  EXPECT_FALSE(find_row(v, "Grid fills at least one wave")->holds);
  EXPECT_EQ(v.next_sections.front(), "Launch Statistics");
}

TEST(ClassifyFixtures, StridedIsMemoryBoundWithTheUncoalescedSignalFiring) {
  Verdict v = classify_kernel(fixture_kernel("strided.raw.csv"));
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);
  EXPECT_EQ(v.limiter, "DRAM");
  const SignalRow& ld = signal(v, "Global load efficiency");
  EXPECT_EQ(ld.state, SignalState::Fires);
  EXPECT_NE(ld.value.find("12.5%"), std::string::npos) << ld.value;
  EXPECT_NE(ld.value.find("32 sectors/request (ideal 4 "), std::string::npos) << ld.value;
  EXPECT_EQ(signal(v, "Global store efficiency").state, SignalState::Clear);
  // L2 hits 8.6%, but the gather loads each element once (reuse 0.06 against the DRAM bytes):
  // its repeated sector fetches are the coalescing signal's, whose fix removes them.
  const SignalRow& l2 = signal(v, "L2 hit rate");
  EXPECT_EQ(l2.state, SignalState::Clear);
  EXPECT_NE(l2.value.find("8.6%; reuse 0.0625"), std::string::npos) << l2.value;
  EXPECT_NE(std::find(v.next_sections.begin(), v.next_sections.end(), "Source Counters"), v.next_sections.end());
}

TEST(ClassifyFixtures, StallSharesMatchNcusOwnRuleText) {
  // copy.details.txt: "This stall type represents about 96.7% of the total average of 282.2 cycles".
  auto copy = stall_share(fixture_kernel("copy.raw.csv"), "long_scoreboard");
  ASSERT_TRUE(copy.has_value());
  EXPECT_NEAR(copy->share_pct, 96.7, 0.05);
  // tiny.details.txt: "about 94.8% of the total average of 82.2 cycles".
  EXPECT_NEAR(stall_share(fixture_kernel("tiny.raw.csv"), "long_scoreboard")->share_pct, 94.8, 0.05);
  auto ranked = ranked_stalls(fixture_kernel("fma.raw.csv"));
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked.front().reason, "not_selected");  // "selected" (issuing) is not a stall
  for (const auto& s : ranked) EXPECT_NE(s.reason, "selected");
}

TEST(ClassifyFixtures, EverySeedSignalRowIsEvaluatedWithThresholdAndIdeal) {
  for (const char* f : {"copy.raw.csv", "fma.raw.csv", "tiny.raw.csv", "strided.raw.csv"}) {
    Verdict v = classify_kernel(fixture_kernel(f));
    ASSERT_EQ(v.signals.size(), 13u) << f;  // the seed's 12 rows and kprof's thread divergence
    for (const auto& s : v.signals) {
      EXPECT_NE(s.state, SignalState::NotCollected) << f << ": " << s.symptom;
      EXPECT_FALSE(s.threshold.empty()) << s.symptom;
      EXPECT_FALSE(s.ideal.empty()) << s.symptom;
      EXPECT_FALSE(s.metric.empty()) << s.symptom;
      EXPECT_FALSE(s.likely_issue.empty()) << s.symptom;
    }
    EXPECT_EQ(signal(v, "Register spill").state, SignalState::Clear) << f;
  }
}

TEST(ClassifyFixtures, BasicSetExportIsClassifiedAndNamesWhatItLacks) {
  Verdict v = classify_kernel(fixture_kernel("copy.basic-like.raw.csv"));
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);
  EXPECT_EQ(v.limiter, "DRAM");
  for (const auto& s : v.signals) {
    EXPECT_EQ(s.state, SignalState::NotCollected) << s.symptom;
    EXPECT_EQ(s.value, "not collected");
    EXPECT_FALSE(s.missing.empty());
  }
  auto has = [&](const std::vector<std::string>& list, const std::string& needle) {
    for (const auto& s : list)
      if (s.find(needle) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has(v.missing_metrics, m::kEligibleWarps));
  EXPECT_TRUE(has(v.missing_metrics, stall_metric("long_scoreboard")));
  EXPECT_TRUE(has(v.not_concluded, "Stall Long Scoreboard high"));
  EXPECT_TRUE(has(v.not_concluded, m::kLdBytesPerSector));
}

TEST(ClassifyFixtures, RealBasicSetExportFromTheH200NamesWhatItLacks) {
  // `ncu --clock-control none --csv --page raw` (ncu's default "basic" set) of kprof's runner on
  // the 16 Mi-element vector add, captured on the H200 on 2026-11-29 (==PROF== lines included).
  Verdict v = classify_kernel(fixture_kernel("vadd16Mi.basic.raw.csv"));
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);
  EXPECT_EQ(v.limiter, "DRAM");
  size_t not_collected = 0;
  for (const auto& s : v.signals) not_collected += s.state == SignalState::NotCollected;
  EXPECT_EQ(not_collected, v.signals.size());  // the basic set has none of the secondary metrics
  auto has = [&](const std::vector<std::string>& list, const std::string& needle) {
    for (const auto& s : list)
      if (s.find(needle) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has(v.missing_metrics, m::kEligibleWarps));
  EXPECT_TRUE(has(v.not_concluded, "Stall Long Scoreboard high"));
}

TEST(ClassifySynthetic, ThresholdsAreStrictAsTheSeedStates) {
  EXPECT_EQ(classify_kernel(synthetic(10, 60)).cls, Bottleneck::Mixed);        // 60 is not > 60
  EXPECT_EQ(classify_kernel(synthetic(41, 61)).cls, Bottleneck::MemoryBound);  // 20 points: much higher
  EXPECT_EQ(classify_kernel(synthetic(42, 61)).cls, Bottleneck::Mixed);        // 19 points: not
  EXPECT_EQ(classify_kernel(synthetic(61, 41)).cls, Bottleneck::ComputeBound);
  EXPECT_EQ(classify_kernel(synthetic(85, 80)).cls, Bottleneck::Mixed);  // both high, close
  EXPECT_EQ(classify_kernel(synthetic(39, 39.9)).cls, Bottleneck::LatencyBound);
  EXPECT_EQ(classify_kernel(synthetic(40, 10)).cls, Bottleneck::Mixed);  // 40 is not < 40
}

TEST(ClassifySynthetic, SaturatedPipeMakesComputeBoundWithoutTheLead) {
  // Shape of a CUTLASS tensor-core GEMM measured on the H200: SM 76.8%, memory 58.1%, tensor pipe
  // 80.4%, theoretical occupancy 12.5% (registers and shared memory), 3.9 waves.
  KernelMetrics k = synthetic(76.8, 58.1, 12.5, 12.5, 512, 1);
  k.set(m::kPipeTensor, 80.4, "%");
  k.set(m::kPipeFma, 1.7, "%");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::ComputeBound);
  EXPECT_NE(v.limiter.find("ensor"), std::string::npos) << v.limiter;
  // Without a busy pipe the same SOLs are Mixed: occupancy is not blamed with SM SOL above 60%.
  KernelMetrics idle = synthetic(76.8, 58.1, 12.5, 12.5, 512, 1);
  idle.set(m::kPipeTensor, 30, "%");
  EXPECT_EQ(classify_kernel(idle).cls, Bottleneck::Mixed);
  // Both SOLs above 60% (a shared-memory softmax on the H200: SM 64.4%, memory 60.6%): both units
  // are busy, so Mixed even with a busy pipe.
  KernelMetrics both = synthetic(64.4, 60.6);
  both.set(m::kPipeAlu, 70, "%");
  EXPECT_EQ(classify_kernel(both).cls, Bottleneck::Mixed);
}

TEST(ClassifySynthetic, LowTheoreticalOccupancyNamesItsLimiter) {
  Verdict v = classify_kernel(synthetic(30, 35, /*theoretical*/ 25, /*achieved*/ 24, 132 * 2 * 8, /*reg*/ 2));
  EXPECT_EQ(v.cls, Bottleneck::OccupancyBound);
  EXPECT_EQ(v.limiter, "registers (2 blocks per SM)");
  EXPECT_EQ(v.next_sections.front(), "Occupancy");
}

TEST(ClassifySynthetic, AchievedFarBelowTheoreticalNeedsAFullWave) {
  EXPECT_EQ(classify_kernel(synthetic(20, 30, 100, 40)).cls, Bottleneck::OccupancyBound);
  EXPECT_EQ(classify_kernel(synthetic(20, 30, 100, 51)).cls, Bottleneck::LatencyBound);  // 51% of theoretical
  Verdict few = classify_kernel(synthetic(20, 30, 100, 40, /*grid*/ 100));
  EXPECT_EQ(few.cls, Bottleneck::LatencyBound);
  EXPECT_NE(few.limiter.find("too few blocks"), std::string::npos);
}

TEST(ClassifySynthetic, OccupancyIsCheckedBeforeMixed) {
  EXPECT_EQ(classify_kernel(synthetic(50, 55, 25, 24, 132 * 2 * 8, 2)).cls, Bottleneck::OccupancyBound);
}

TEST(ClassifySynthetic, LatencyCauseFallsBackToEligibleWarpsThenStalls) {
  KernelMetrics k = synthetic(10, 20);
  k.set(m::kEligibleWarps, 0.3, "warp");
  EXPECT_NE(classify_kernel(k).limiter.find("few eligible warps"), std::string::npos);
  k.set(m::kEligibleWarps, 2.5, "warp");
  k.set(m::kWarpLatency, 40, "cycle");
  k.set(stall_metric("barrier"), 24, "");
  k.set(stall_metric("mio_throttle"), 8, "");
  k.set(stall_metric("selected"), 1, "");
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.limiter, "stalls: barrier 60%, mio_throttle 20%");
  EXPECT_EQ(signal(v, "Stall Barrier").state, SignalState::Fires);
}

TEST(ClassifySynthetic, MissingSolMeansNotClassified) {
  KernelMetrics k = synthetic(10, 80);
  k.metrics.erase(m::kSmSol);
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::NotClassified);
  ASSERT_FALSE(v.not_concluded.empty());
  EXPECT_NE(v.not_concluded.front().find(m::kSmSol), std::string::npos);
}

TEST(ClassifySynthetic, MemorySolFromUnitsWhenNcusOwnIsMissing) {
  KernelMetrics k = synthetic(10, 80);
  k.metrics.erase(m::kMemSol);
  Verdict v = classify_kernel(k);
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);  // max(DRAM 80, L1 40, L2 26.7)
  EXPECT_NE(find_row(v, "Memory SOL")->metric.find("not collected"), std::string::npos);
  bool noted = false;
  for (const auto& s : v.not_concluded) noted |= s.find(m::kMemSol) != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ClassifySynthetic, UnitFarFromMemorySolFallsBackToTheHighest) {
  SolReading s;
  s.mem = 70;
  s.dram = 50;
  s.l1 = 65;
  s.l2 = 60;
  auto u = memory_unit(s);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->name, "L1");
  EXPECT_FALSE(u->matches_sol);
  s.l2 = 69.5;  // within 1 point of memory SOL
  EXPECT_EQ(memory_unit(s)->name, "L2");
  EXPECT_TRUE(memory_unit(s)->matches_sol);
}

TEST(ClassifyCall, LeadingKernelHasTheMostGpuTimeSummedOverLaunches) {
  MetricTable t;
  KernelMetrics a1 = synthetic(10, 80), a2 = synthetic(10, 80), b = synthetic(80, 10);
  a1.name = a2.name = "a(float *)";
  b.name = "b(float *)";
  a1.id = 0, b.id = 1, a2.id = 2;
  a1.set(m::kDuration, 900, "ns");
  b.set(m::kDuration, 1500, "ns");
  a2.set(m::kDuration, 1100, "ns");
  t.kernels = {a1, b, a2};
  CallVerdict call = classify_call(t);
  ASSERT_EQ(call.kernels.size(), 3u);
  EXPECT_EQ(call.leading_name, "a(float *)");
  EXPECT_EQ(call.leading, 2);  // the longer launch of a
  EXPECT_DOUBLE_EQ(call.total_gpu_time_ns, 3500);
  EXPECT_NEAR(call.leading_share_pct, 100.0 * 2000 / 3500, 1e-9);
  EXPECT_EQ(call.cls(), Bottleneck::MemoryBound);
}

TEST(ClassifyCall, RealExportsTogetherAreLedByTheLongestKernel) {
  MetricTable t;
  int id = 0;
  for (const char* f : {"copy.raw.csv", "fma.raw.csv", "tiny.raw.csv", "strided.raw.csv"}) {
    KernelMetrics k = fixture_kernel(f);
    k.id = id++;
    t.kernels.push_back(k);
  }
  CallVerdict call = classify_call(t);
  EXPECT_EQ(call.leading, 2);  // tiny: 3.07 ms of 6.70 ms
  EXPECT_EQ(call.cls(), Bottleneck::LatencyBound);
  EXPECT_NEAR(call.leading_share_pct, 100.0 * 3071488 / (132416 + 2323584 + 3071488 + 1177984), 1e-6);
  EXPECT_EQ(call.kernels[0].cls, Bottleneck::MemoryBound);
  EXPECT_EQ(call.kernels[1].cls, Bottleneck::ComputeBound);
}

TEST(ClassifyCall, EmptyTableHasNoLeader) {
  CallVerdict call = classify_call(MetricTable{});
  EXPECT_EQ(call.leading, -1);
  EXPECT_EQ(call.cls(), Bottleneck::NotClassified);
}

TEST(ClassifySynthetic, SignalWithoutEfficiencyNamesOnlyTheMissingMetric) {
  KernelMetrics k = fixture_kernel("strided.raw.csv");
  k.metrics.erase(m::kLdBytesPerSector);
  Verdict v = classify_kernel(k);
  EXPECT_EQ(signal(v, "Global load efficiency").state, SignalState::NotCollected);
  ASSERT_EQ(v.not_concluded.size(), 1u);
  EXPECT_EQ(v.not_concluded[0], std::string("secondary signal \"Global load efficiency < 95% (sectors/request "
                                            "above the ideal)\": needs ") +
                                    m::kLdBytesPerSector);
  EXPECT_EQ(v.cls, Bottleneck::MemoryBound);  // the class does not depend on it
}

TEST(ClassifySynthetic, SharedMemoryEfficiencyAndBankConflictsAreOneRow) {
  KernelMetrics k = synthetic(70, 30);
  k.set(m::kBankConflicts, 300, "");
  k.set(m::kSharedWavefronts, 1000, "");
  Verdict v = classify_kernel(k);
  const SignalRow& s = signal(v, "Shared memory efficiency low or bank conflicts high");
  EXPECT_EQ(s.state, SignalState::Fires);
  EXPECT_NE(s.value.find("efficiency 70%"), std::string::npos) << s.value;
  EXPECT_NE(s.value.find("conflicts 30%"), std::string::npos) << s.value;
  k.set(m::kBankConflicts, 50, "");  // 5% conflicts: 95% efficient, under the 10% threshold
  Verdict v2 = classify_kernel(k);
  EXPECT_EQ(signal(v2, "Shared memory efficiency").state, SignalState::Clear);
}
