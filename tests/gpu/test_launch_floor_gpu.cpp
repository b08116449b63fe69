// The launch floor measured on a real GPU (stages/timing/launch_floor.hpp measures an empty
// kernel's gpu__time_duration with kprof's GPU-duration pass, flows/ceiling_cache.hpp caches it).
// tests/gpu/run.sh floor runs it and prints the value to commit in stages/analysis/known_gpus.cpp
// for the GPU it ran on. Skips without a GPU.
#include <gtest/gtest.h>

#include <iostream>

#include "device/cuda.hpp"
#include "flows/ceiling_cache.hpp"
#include "gpu_guard.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(LaunchFloorGpu, EmptyKernelIsMeasuredOnceThenCached) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TempDir dir;
  ScopedEnv cache("KPROF_CACHE_DIR", dir.path());
  std::string why;
  auto first = launch_floor(0, &why);
  ASSERT_TRUE(first) << why;
  EXPECT_FALSE(first->cached);
  EXPECT_FALSE(first->provisional);
  // An empty kernel takes between 0.3 and 10 us on any GPU kprof targets (ncu shows ~1.5 us on Hopper).
  EXPECT_GT(first->seconds, 0.3e-6);
  EXPECT_LT(first->seconds, 10e-6);
  EXPECT_NE(first->how.find("median of 20"), std::string::npos) << first->how;
  std::cout << "launch floor: " << first->seconds * 1e9 << " ns (" << first->how << ")\n";
  auto second = launch_floor(0, &why);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cached);
  EXPECT_DOUBLE_EQ(second->seconds, first->seconds);
  EXPECT_NE(read_file_or_empty(dir / "ceilings.json").find("floor-v1"), std::string::npos);
  // The committed value (provisional on the H200) must not be below the measured one by much:
  // it came from a kernel that does a little work.
  auto known = ceilings_for_gpu(known_gpu_ceilings(), gpu_name(0));
  if (known && known->floor && known->floor->provisional)
    std::cout << "committed provisional floor " << known->floor->seconds * 1e9 << " ns; measured "
              << first->seconds * 1e9 << " ns: replace it in stages/analysis/known_gpus.cpp\n";
}
