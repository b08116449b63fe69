// The achievable DRAM bandwidth measured on a real GPU (stages/timing/achievable.hpp measures,
// flows/ceiling_cache.hpp caches) and the NVML sampling during timed calls
// (stages/timing/timing.hpp TimingResult::during). Skips without a GPU.
#include <gtest/gtest.h>

#include "device/cuda.hpp"
#include "gpu_guard.hpp"
#include "flows/ceiling_cache.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(AchievableGpu, CopyBandwidthIsMeasuredOnceThenCached) {
  KPROF_REQUIRE_GPU();
  select_gpu(0);
  TempDir dir;
  ScopedEnv cache("KPROF_CACHE_DIR", dir.path());
  std::string why;
  auto first = achievable_dram_bandwidth(0, &why);
  ASSERT_TRUE(first) << why;
  EXPECT_FALSE(first->cached);
  // Any GPU kprof targets moves between 100 GB/s and 20 TB/s; an H200 about 4.3 TB/s.
  EXPECT_GT(first->bytes_per_s, 1e11);
  EXPECT_LT(first->bytes_per_s, 2e13);
  EXPECT_NE(first->how.find("median of 20"), std::string::npos) << first->how;
  auto second = achievable_dram_bandwidth(0, &why);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cached);
  EXPECT_DOUBLE_EQ(second->bytes_per_s, first->bytes_per_s);
  EXPECT_NE(read_file_or_empty(dir / "ceilings.json").find("copy-v1"), std::string::npos);
}
