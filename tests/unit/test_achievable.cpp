// The cache of the achievable DRAM bandwidth (flows/ceiling_cache.hpp; the stage
// stages/timing/achievable.hpp only measures): where it lives, its key, reading and writing
// entries, and the file kept by the flow. The measurement itself runs in tests/gpu/test_achievable_gpu.cpp.
#include <gtest/gtest.h>

#include "core/fs.hpp"
#include "flows/ceiling_cache.hpp"
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

TEST(AchievableCache, FlowMeasuresOnceThenReadsTheFile) {
  TempDir dir;
  std::string path = dir / "ceilings.json";
  int measured = 0;
  auto measure = [&](std::string*) -> std::optional<AchievableBandwidth> {
    ++measured;
    AchievableBandwidth bw;
    bw.bytes_per_s = 4.3e12;
    bw.how = "copy";
    bw.measured_at = "2026-12-01T00:00:00Z";
    return bw;
  };
  std::string why;
  auto first = cached_or_measured(path, "gpu A", measure, &why);
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->cached);
  EXPECT_EQ(measured, 1);
  auto second = cached_or_measured(path, "gpu A", measure, &why);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(measured, 1) << "a cached GPU is not measured again";
  EXPECT_DOUBLE_EQ(second->bytes_per_s, 4.3e12);
  // Another GPU measures again and keeps the first entry.
  ASSERT_TRUE(cached_or_measured(path, "gpu B", measure, &why));
  EXPECT_EQ(measured, 2);
  auto doc = nlohmann::json::parse(read_file_or_empty(path));
  EXPECT_TRUE(cache_lookup(doc, "gpu A"));
  EXPECT_TRUE(cache_lookup(doc, "gpu B"));
  EXPECT_TRUE(why.empty()) << why;
}

TEST(AchievableCache, FlowRewritesDamagedFileAndReportsFailures) {
  TempDir dir;
  std::string path = dir / "ceilings.json";
  write(path, "{not json");
  auto measure = [](std::string*) -> std::optional<AchievableBandwidth> {
    AchievableBandwidth bw;
    bw.bytes_per_s = 1e12;
    return bw;
  };
  std::string why;
  ASSERT_TRUE(cached_or_measured(path, "k", measure, &why));
  EXPECT_TRUE(cache_lookup(nlohmann::json::parse(read_file_or_empty(path)), "k"));
  // No cache folder: measured, not cached, said so.
  auto none = cached_or_measured("", "k", measure, &why);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->cached);
  EXPECT_NE(why.find("not cached"), std::string::npos) << why;
  // A measurement that fails gives nullopt with its reason, and writes nothing.
  std::string why2;
  auto failing = [](std::string* w) -> std::optional<AchievableBandwidth> {
    *w = "achievable bandwidth not measured: no GPU";
    return std::nullopt;
  };
  std::string other = dir / "other.json";
  EXPECT_FALSE(cached_or_measured(other, "k", failing, &why2));
  EXPECT_NE(why2.find("no GPU"), std::string::npos);
  EXPECT_FALSE(path_exists(other));
}
