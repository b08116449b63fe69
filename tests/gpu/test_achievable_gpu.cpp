// The achievable DRAM bandwidth and the launch floor measured on a real GPU (stages/timing/
// achievable.hpp and launch_floor.hpp measure, flows/ceiling_cache.hpp caches) and the NVML sampling during timed calls
// (stages/timing/timing.hpp TimingResult::during). Skips without a GPU.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>

#include "device/cuda.hpp"
#include "gpu_guard.hpp"
#include "flows/ceiling_cache.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// GPU 0 selected and a cache folder of the test's own (KPROF_CACHE_DIR); skips without a GPU.
class CachedCeilingGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    KPROF_REQUIRE_GPU();
    select_gpu(0);
    cache_ = std::make_unique<ScopedEnv>("KPROF_CACHE_DIR", dir_.path());
  }
  TempDir dir_;
  std::unique_ptr<ScopedEnv> cache_;
  std::string why_;
};

using AchievableGpu = CachedCeilingGpu;
using LaunchFloorGpu = CachedCeilingGpu;

}  // namespace

TEST_F(AchievableGpu, CopyBandwidthIsMeasuredOnceThenCached) {
  auto first = achievable_dram_bandwidth(0, &why_);
  ASSERT_TRUE(first) << why_;
  EXPECT_FALSE(first->cached);
  // Any GPU kprof targets moves between 100 GB/s and 20 TB/s; an H200 about 4.3 TB/s.
  EXPECT_GT(first->bytes_per_s, 1e11);
  EXPECT_LT(first->bytes_per_s, 2e13);
  EXPECT_NE(first->how.find("median of 20"), std::string::npos) << first->how;
  auto second = achievable_dram_bandwidth(0, &why_);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cached);
  EXPECT_DOUBLE_EQ(second->bytes_per_s, first->bytes_per_s);
  EXPECT_NE(read_file_or_empty(dir_ / "ceilings.json").find("copy-v1"), std::string::npos);
}

// The launch floor (stages/timing/launch_floor.hpp: an empty kernel's gpu__time_duration through
// kprof's GPU-duration pass, cached beside the bandwidth). tests/gpu/run.sh floor runs it and prints
// the value to commit in stages/analysis/known_gpus.cpp for the GPU it ran on.
TEST_F(LaunchFloorGpu, EmptyKernelIsMeasuredOnceThenCached) {
  auto first = launch_floor(0, &why_);
  ASSERT_TRUE(first) << why_;
  EXPECT_FALSE(first->cached);
  EXPECT_FALSE(first->provisional);
  // An empty kernel takes between 0.3 and 10 us on any GPU kprof targets (ncu shows ~1.5 us on Hopper).
  EXPECT_GT(first->seconds, 0.3e-6);
  EXPECT_LT(first->seconds, 10e-6);
  EXPECT_NE(first->how.find("median of 20"), std::string::npos) << first->how;
  std::cout << "launch floor: " << first->seconds * 1e9 << " ns (" << first->how << ")\n";
  auto second = launch_floor(0, &why_);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cached);
  EXPECT_DOUBLE_EQ(second->seconds, first->seconds);
  EXPECT_NE(read_file_or_empty(dir_ / "ceilings.json").find("floor-v1"), std::string::npos);
  auto known = ceilings_for_gpu(known_gpu_ceilings(), gpu_name(0));
  if (known && known->floor && known->floor->provisional)
    std::cout << "committed provisional floor " << known->floor->seconds * 1e9 << " ns; measured "
              << first->seconds * 1e9 << " ns: replace it in stages/analysis/known_gpus.cpp\n";
}
