// The cache of the achievable DRAM bandwidth (stages/timing/achievable.hpp): where it lives, its key,
// and reading and writing entries. The measurement itself runs in tests/gpu/test_achievable_gpu.cpp.
#include <gtest/gtest.h>

#include "stages/timing/achievable.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(AchievableCache, PathFollowsTheEnvironment) {
  ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
  {
    ScopedEnv k("KPROF_CACHE_DIR", std::string("/tmp/kc"));
    EXPECT_EQ(ceiling_cache_path(), "/tmp/kc/ceilings.json");
  }
  ScopedEnv k("KPROF_CACHE_DIR", std::nullopt);
  {
    ScopedEnv x("XDG_CACHE_HOME", std::string("/tmp/xdg"));
    EXPECT_EQ(ceiling_cache_path(), "/tmp/xdg/kprof/ceilings.json");
  }
  ScopedEnv home("HOME", std::string("/home/u"));
  EXPECT_EQ(ceiling_cache_path(), "/home/u/.cache/kprof/ceilings.json");
}

TEST(AchievableCache, KeyNamesGpuSlotAndDriver) {
  EXPECT_EQ(ceiling_cache_key("NVIDIA H200", "0000:3B:00.0", 13000), "NVIDIA H200|0000:3B:00.0|driver 13000|copy-v1");
}

TEST(AchievableCache, StoreThenLookup) {
  AchievableBandwidth bw;
  bw.bytes_per_s = 4.31e12;
  bw.how = "copy";
  bw.measured_at = "2026-12-01T00:00:00Z";
  nlohmann::json doc = cache_store(nlohmann::json::object(), "k1", bw);
  auto hit = cache_lookup(doc, "k1");
  ASSERT_TRUE(hit);
  EXPECT_DOUBLE_EQ(hit->bytes_per_s, 4.31e12);
  EXPECT_TRUE(hit->cached);
  EXPECT_EQ(hit->measured_at, "2026-12-01T00:00:00Z");
  EXPECT_FALSE(cache_lookup(doc, "another GPU"));
  // Another key keeps the first; a malformed entry or a non-object document is a miss.
  doc = cache_store(doc, "k2", bw);
  EXPECT_TRUE(cache_lookup(doc, "k1"));
  EXPECT_FALSE(cache_lookup(nlohmann::json::parse(R"({"k1": {"bytes_per_s": "fast"}})"), "k1"));
  EXPECT_FALSE(cache_lookup(nlohmann::json::parse(R"({"k1": {"bytes_per_s": 0}})"), "k1"));
  EXPECT_FALSE(cache_lookup(nlohmann::json::array(), "k1"));
  EXPECT_TRUE(cache_lookup(cache_store(nlohmann::json::array(), "k", bw), "k"));
}
