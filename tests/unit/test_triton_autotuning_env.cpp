// kprof keeps Triton's autotuning results (TRITON_CACHE_AUTOTUNING=1) unless the user chose.
#include <gtest/gtest.h>

#include <cstdlib>

#include "python/interpreter.hpp"

using namespace kprof;

TEST(TritonAutotuningEnv, SetWhenUnsetAndKeptWhenTheUserChose) {
  const char* before = std::getenv("TRITON_CACHE_AUTOTUNING");
  std::string saved = before ? before : "";
  ::unsetenv("TRITON_CACHE_AUTOTUNING");
  EXPECT_EQ(keep_triton_autotuning(), "1");
  EXPECT_STREQ(std::getenv("TRITON_CACHE_AUTOTUNING"), "1");
  ::setenv("TRITON_CACHE_AUTOTUNING", "0", 1);
  EXPECT_EQ(keep_triton_autotuning(), "0");
  EXPECT_STREQ(std::getenv("TRITON_CACHE_AUTOTUNING"), "0");
  if (before)
    ::setenv("TRITON_CACHE_AUTOTUNING", saved.c_str(), 1);
  else
    ::unsetenv("TRITON_CACHE_AUTOTUNING");
}
