// The interleaved rounds of `kprof run --decide` on a real GPU (stages/timing/rounds_gpu.hpp):
// spin kernels of known duration (tests/gpu/testing_kernels.cu, %globaltimer) as the versions, a
// planted 3% gain kept, a kernel against itself not decided, every round's order a permutation and
// its clocks read. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "device/cuda.hpp"
#include "gpu/testing_kernels.hpp"
#include "gpu_guard.hpp"
#include "stages/env/nvml.hpp"
#include "stages/timing/decision.hpp"
#include "stages/timing/rounds_gpu.hpp"

using namespace kprof;

namespace {

/// A version that spins `ns` on the legacy default stream; one small output buffer.
class SpinVersion : public KernelInstance {
 public:
  explicit SpinVersion(uint64_t ns) : ns_(ns) {}
  ~SpinVersion() override {
    if (x_) cudaFree(x_);
  }
  Implementation implementation() const override { return Implementation::CudaCpp; }
  std::string signature() const override { return "solve(float* x)"; }
  void prepare(uint64_t seed) override {
    if (!x_) cuda_check(cudaMalloc(reinterpret_cast<void**>(&x_), sizeof(float)), "spin buffer");
    const float v = static_cast<float>(seed);
    cuda_check(cudaMemcpy(x_, &v, sizeof(float), cudaMemcpyHostToDevice), "spin fill");
  }
  std::vector<BufferView> buffers() const override {
    BufferView b;
    b.name = "x";
    b.dtype = DType::F32;
    b.count = 1;
    b.ptr = x_;
    b.is_output = true;
    return {b};
  }
  std::vector<ScalarArg> scalars() const override { return {}; }
  void call() override { test_kernels::launch_spin(ns_, cudaStreamLegacy); }

 private:
  uint64_t ns_;
  float* x_ = nullptr;
};

RoundOptions few_rounds() {
  RoundOptions o;
  o.rounds = 30;
  o.budget_s = 30;
  return o;
}

TimingOptions quick_warmup() {
  TimingOptions t;
  t.warmup_calls = 3;
  t.seed = 5;
  return t;
}

/// The rounds of a 200 us spin, one 5% faster and the first again; kernel times (CUPTI) or call times.
void planted_gain_is_kept(bool kernel_time) {
  select_gpu(0);
  SpinVersion base(200000), faster(static_cast<uint64_t>(200000 / 1.05)), same(200000);
  RoundTiming t = measure_rounds({&base, &faster, &same}, quick_warmup(), few_rounds(), 0, kernel_time);
  EXPECT_EQ(t.kernel_time, kernel_time) << (t.notes.empty() ? "" : t.notes.back());
  const RoundsResult& r = t.rounds;
  ASSERT_EQ(r.rounds.size(), 30u);
  EXPECT_EQ(r.arms(), 4);
  EXPECT_EQ(t.warmup_calls, (std::vector<int>{3, 3, 3}));
  for (const auto& round : r.rounds) {
    std::vector<int> sorted = round.order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
    for (double ms : round.ms) EXPECT_GT(ms, 0.19);
  }
  NoiseFloor f = aa_floor(r.kept_ms(0), r.kept_ms(3));
  auto keep = decide_paired(r.kept_ms(0), r.kept_ms(1), f, DecisionRule{}, {});
  EXPECT_EQ(keep.decision, Decision::Keep) << decision_text(keep);
  auto self = decide_paired(r.kept_ms(0), r.kept_ms(2), f, DecisionRule{}, {});
  EXPECT_EQ(self.decision, Decision::Inconclusive) << decision_text(self);
  if (Nvml::get()) {
    EXPECT_TRUE(r.band.ref_mhz.has_value()) << r.band.note;
  }
}

}  // namespace

TEST(GpuRounds, APlantedGainIsKeptAndTheRoundsAreInterleaved) {
  KPROF_REQUIRE_GPU();
  planted_gain_is_kept(false);
}

TEST(GpuRounds, KernelTimeRoundsKeepThePlantedGainToo) {
  KPROF_REQUIRE_GPU();
  planted_gain_is_kept(true);
}

TEST(GpuRounds, TheAAArmRunsOnItsOwnInstance) {
  // Issue 49: the A/A arm is a second instance of the baseline with its own buffers and input sets.
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  SpinVersion base(200000), faster(static_cast<uint64_t>(200000 / 1.05)), aa(200000);
  RoundTiming t = measure_rounds({&base, &faster}, quick_warmup(), few_rounds(), 0, false, &aa);
  const RoundsResult& r = t.rounds;
  EXPECT_EQ(r.arms(), 3);
  EXPECT_EQ(t.warmup_calls, (std::vector<int>{3, 3, 3}));  // the A/A instance warmed up too
  NoiseFloor f = aa_floor(r.kept_ms(0), r.kept_ms(2));
  EXPECT_FALSE(f.biased) << "A/A interval " << f.aa->lo << " to " << f.aa->hi;
  EXPECT_NE(r.seed, 0u);  // drawn per run
}
