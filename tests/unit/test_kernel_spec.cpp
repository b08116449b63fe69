// The runner's arguments recreate the same kernel instance (same seed, sizes, dimensions).
#include <gtest/gtest.h>

#include <algorithm>

#include "kernel/kernel_spec.hpp"

using namespace kprof;

TEST(KernelSpec, RunnerArgsCarryEverythingThatShapesTheInputs) {
  KernelSpec s;
  s.kernel = "k.cu";
  s.seed = 7;
  s.gpu = 1;
  s.sizes = {"A=M*K"};
  s.ptr_size = 4096;
  s.so_path = "lib/k.so";
  s.dims.set("M", "64");
  s.dims.set("alpha", "0.5");
  auto a = spec_to_args(s);
  auto has = [&](const std::string& k, const std::string& v) {
    for (size_t i = 0; i + 1 < a.size(); ++i)
      if (a[i] == k && a[i + 1] == v) return true;
    return false;
  };
  EXPECT_EQ(a[0], "k.cu");
  EXPECT_TRUE(has("--implementation", "cuda-cpp"));
  EXPECT_TRUE(has("--seed", "7"));
  EXPECT_TRUE(has("--gpu", "1"));
  EXPECT_TRUE(has("--size", "A=M*K"));
  EXPECT_TRUE(has("--ptr-size", "4096"));
  EXPECT_TRUE(has("--so", "lib/k.so"));
  EXPECT_NE(std::find(a.begin(), a.end(), "--M=64"), a.end());
  EXPECT_NE(std::find(a.begin(), a.end(), "--alpha=0.5"), a.end());
}

TEST(KernelSpec, RunnerArgsCarryTheArchAndTheNvccFlagsLast) {
  // The runner reads solve() again: with the same --arch and `--` flags it reads the same one.
  KernelSpec s;
  s.kernel = "k.cu";
  s.arch = "sm_90a";
  s.nvcc_flags = {"-DUSE_DOUBLE", "-I", "inc"};
  s.dims.set("N", "8");
  auto a = spec_to_args(s);
  auto arch = std::find(a.begin(), a.end(), "--arch");
  ASSERT_NE(arch, a.end());
  EXPECT_EQ(*(arch + 1), "sm_90a");
  ASSERT_GE(a.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(a.end() - 4, a.end()),
            (std::vector<std::string>{"--", "-DUSE_DOUBLE", "-I", "inc"}));
}
