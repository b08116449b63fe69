// Attribution of CUPTI kernel records to calls and their aggregation (src/stages/timing/attribution.hpp),
// on synthetic records.
#include <gtest/gtest.h>

#include "stages/timing/attribution.hpp"
#include "stages/timing/cupti_session.hpp"
#include "device/l2_flush.hpp"

using namespace kprof;

namespace {
KernelRecord kr(const std::string& name, uint64_t start, uint64_t end, uint32_t stream, uint32_t corr) {
  return KernelRecord{name, start, end, stream, corr};
}
}  // namespace

TEST(TimingAttribution, CorrelationUsesTheLaunchTimeNotTheGpuTime) {
  // Call 0 spans host time [100, 200], call 1 [300, 400]. Kernel 7 was launched (API start 150)
  // in call 0 but its GPU start (210) falls after the window: correlation still places it in call 0.
  std::vector<CallWindow> w = {{100, 200}, {300, 400}};
  std::vector<ApiRecord> apis = {{7, 150, 160}, {8, 310, 320}};
  std::vector<KernelRecord> k = {kr("a", 210, 290, 1, 7), kr("b", 330, 380, 1, 8)};
  Attribution a = attribute_kernels(k, apis, w);
  ASSERT_EQ(a.per_call.size(), 2u);
  ASSERT_EQ(a.per_call[0].size(), 1u);
  EXPECT_EQ(a.per_call[0][0].name, "a");
  ASSERT_EQ(a.per_call[1].size(), 1u);
  EXPECT_EQ(a.per_call[1][0].name, "b");
  EXPECT_EQ(a.by_correlation, 2u);
  EXPECT_EQ(a.by_time, 0u);
  EXPECT_TRUE(a.outside.empty());
}

TEST(TimingAttribution, FallsBackToGpuStartWithoutApiRecord) {
  std::vector<CallWindow> w = {{100, 200}, {300, 400}};
  std::vector<KernelRecord> k = {kr("late", 320, 350, 1, 99), kr("between", 250, 260, 1, 0)};
  Attribution a = attribute_kernels(k, {}, w);
  ASSERT_EQ(a.per_call[1].size(), 1u);
  EXPECT_EQ(a.per_call[1][0].name, "late");
  EXPECT_EQ(a.by_time, 1u);
  ASSERT_EQ(a.outside.size(), 1u);  // started between calls: nobody's
  EXPECT_EQ(a.outside[0].name, "between");
  EXPECT_TRUE(a.per_call[0].empty());
}

TEST(TimingAttribution, LaunchBetweenCallsIsOutsideEvenIfItRunsLater) {
  std::vector<CallWindow> w = {{100, 200}, {300, 400}};
  std::vector<ApiRecord> apis = {{5, 250, 255}};  // launched by a background thread between calls
  std::vector<KernelRecord> k = {kr("bg", 310, 320, 3, 5)};
  Attribution a = attribute_kernels(k, apis, w);
  EXPECT_EQ(a.outside.size(), 1u);
  EXPECT_TRUE(a.per_call[1].empty());
}

TEST(TimingAttribution, WindowsAreSortedAndBoundsInclusive) {
  std::vector<CallWindow> w = {{300, 400}, {100, 200}};  // given out of order
  std::vector<KernelRecord> k = {kr("at_begin", 100, 150, 1, 0), kr("at_end", 400, 450, 1, 0)};
  Attribution a = attribute_kernels(k, {}, w);
  ASSERT_EQ(a.per_call[0].size(), 1u);
  EXPECT_EQ(a.per_call[0][0].name, "at_begin");
  ASSERT_EQ(a.per_call[1].size(), 1u);
  EXPECT_EQ(a.per_call[1][0].name, "at_end");
}

TEST(TimingAttribution, BusyTimeCountsOverlapOnce) {
  std::vector<KernelRecord> k = {kr("a", 0, 100, 1, 0), kr("b", 50, 150, 2, 0), kr("c", 200, 210, 1, 0)};
  EXPECT_EQ(busy_ns(k), 160u);  // [0,150) + [200,210)
  EXPECT_EQ(busy_ns({}), 0u);
}

TEST(TimingAttribution, SummaryPerCallAndPerName) {
  // Three calls; "gemm" once per call (10, 12, 14 us), "reduce" twice per call (2 us each),
  // the third call's reduce on another stream (id 9; the default stream is 7).
  Attribution a;
  a.per_call.resize(3);
  for (int i = 0; i < 3; ++i) {
    uint64_t t = 1000000 * (i + 1);
    uint64_t g = 10000 + 2000 * i;
    a.per_call[i].push_back(kr("gemm", t, t + g, 7, 0));
    uint32_t rs = i == 2 ? 9 : 7;
    a.per_call[i].push_back(kr("reduce", t + g, t + g + 2000, rs, 0));
    a.per_call[i].push_back(kr("reduce", t + g + 2000, t + g + 4000, rs, 0));
  }
  KernelTimeSummary s = summarize_kernels(a, 7u);
  ASSERT_EQ(s.sum_ms.size(), 3u);
  EXPECT_NEAR(s.sum_ms[0], 0.014, 1e-12);
  EXPECT_NEAR(s.sum_ms[2], 0.018, 1e-12);
  EXPECT_NEAR(s.sum.median, 0.016, 1e-12);
  EXPECT_NEAR(s.busy.median, 0.016, 1e-12);  // sequential kernels: busy == sum
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, "gemm");  // largest total first
  EXPECT_EQ(s.kernels[0].launches, 3u);
  EXPECT_DOUBLE_EQ(s.kernels[0].launches_per_call, 1.0);
  EXPECT_NEAR(s.kernels[0].launch_ms.median, 0.012, 1e-12);
  EXPECT_EQ(s.kernels[1].name, "reduce");
  EXPECT_DOUBLE_EQ(s.kernels[1].launches_per_call, 2.0);
  EXPECT_NEAR(s.kernels[1].per_call_ms_median, 0.004, 1e-12);
  EXPECT_EQ(s.kernels[1].streams, (std::vector<uint32_t>{7, 9}));
  EXPECT_EQ(s.other_streams, (std::vector<uint32_t>{9}));
  EXPECT_EQ(s.calls_without_kernels, 0u);
}

TEST(TimingAttribution, CallsWithoutKernelsAndUnknownDefaultStream) {
  Attribution a;
  a.per_call.resize(2);
  a.per_call[1].push_back(kr("k", 0, 5000, 3, 0));
  KernelTimeSummary s = summarize_kernels(a, std::nullopt);
  EXPECT_EQ(s.calls_without_kernels, 1u);
  EXPECT_DOUBLE_EQ(s.sum_ms[0], 0.0);
  EXPECT_DOUBLE_EQ(s.kernels[0].launches_per_call, 0.5);
  EXPECT_TRUE(s.other_streams.empty());  // without the default stream's id nothing is "other"
}

TEST(TimingAttribution, DemanglesCppNamesAndKeepsPlainOnes) {
  EXPECT_EQ(demangle("_Z6vecAddPKfS0_Pfi"), "vecAdd(float const*, float const*, float*, int)");
  EXPECT_EQ(demangle("_ZN5kprof12test_kernels11spin_kernelEm"), "kprof::test_kernels::spin_kernel(unsigned long)");
  EXPECT_EQ(demangle("add_kernel"), "add_kernel");          // Triton / extern "C"
  EXPECT_EQ(demangle("_Znot_a_symbol"), "_Znot_a_symbol");  // invalid: unchanged
}

TEST(TimingAttribution, MarkerMemsetRevealsTheDefaultStream) {
  std::vector<MemsetRecord> m = {{5, 100 << 20, 0xa5, 50, 60}, {3, 4, 0x6b, 10, 11}, {8, 4, 0x6b, 90, 91}};
  EXPECT_EQ(marker_stream_id(m, 4, 0x6b), std::optional<uint32_t>(3u));  // the earliest match
  EXPECT_EQ(marker_stream_id(m, 8, 0x6b), std::nullopt);
}

TEST(TimingAttribution, KprofsOwnFlushKernelIsDroppedBeforeAttribution) {
  // The L2 flush runs between calls; its records must not show up as "outside" kernels, while a
  // user kernel whose name merely contains the flush's name is kept.
  std::vector<KernelRecord> k = {kr(kL2FlushKernelName, 10, 90, 1, 1), kr("vadd", 120, 150, 1, 2),
                                 kr(kL2FlushKernelName, 210, 290, 1, 3),
                                 kr(std::string("my_") + kL2FlushKernelName, 320, 330, 1, 4)};
  EXPECT_EQ(drop_kernels_named(k, kL2FlushKernelName), 2u);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "vadd");
  EXPECT_EQ(k[1].name, std::string("my_") + kL2FlushKernelName);
  Attribution a = attribute_kernels(k, {}, {{100, 200}, {300, 400}});
  EXPECT_TRUE(a.outside.empty());
  EXPECT_EQ(drop_kernels_named(k, kL2FlushKernelName), 0u);
}

TEST(TimingAttribution, CallSequenceIsLaunchOrderAndStableAcrossCalls) {
  // Two streams: "b" starts on the GPU before "a" but was launched after it (correlation 11 > 10);
  // ncu profiles in launch order, so the sequence is a, b.
  Attribution a;
  a.per_call.resize(2);
  for (int i = 0; i < 2; ++i) {
    uint64_t t = 1000000 * (i + 1);
    a.per_call[i].push_back(kr("b", t, t + 10, 2, 11 + 100 * i));
    a.per_call[i].push_back(kr("a", t + 5, t + 20, 1, 10 + 100 * i));
  }
  KernelTimeSummary s = summarize_kernels(a, 1u);
  EXPECT_EQ(s.call_sequence, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(s.sequence_stable);
  // A third call that launches only "a": no one sequence stands for every call.
  a.per_call.push_back({kr("a", 9000000, 9000010, 1, 500)});
  s = summarize_kernels(a, 1u);
  EXPECT_EQ(s.call_sequence, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(s.sequence_stable);
  // Without correlation ids the GPU start order decides.
  EXPECT_EQ(launch_sequence({kr("y", 20, 30, 1, 0), kr("x", 10, 15, 1, 0)}), (std::vector<std::string>{"x", "y"}));
}

TEST(TimingAttribution, AKernelLaunchedAfterItsCallReturnedIsCounted) {
  // Call 0: host window [100, 200], the host call returned at 140. Kernel 7 was launched at 120
  // (by the call); kernel 8 at 160, after the call had returned (a thread it left running).
  std::vector<CallWindow> w = {{100, 200, 140}};
  std::vector<ApiRecord> apis = {{7, 120, 125}, {8, 160, 165}};
  std::vector<KernelRecord> k = {kr("own", 130, 150, 1, 7), kr("left_behind", 170, 190, 1, 8)};
  Attribution a = attribute_kernels(k, apis, w);
  EXPECT_EQ(a.per_call[0].size(), 2u);
  EXPECT_EQ(a.launched_after_return, 1u);
  w[0].return_ns = 0;  // unknown: not judged
  EXPECT_EQ(attribute_kernels(k, apis, w).launched_after_return, 0u);
}
