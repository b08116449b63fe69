// kprof run's build pool: the versions build concurrently with real nvcc (no GPU:
// --arch given), a failed build costs only its own version, a version that needs no build is
// ready at once, and a second pool over unchanged sources compiles nothing.
#include <gtest/gtest.h>

#include <chrono>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/tools.hpp"
#include "flows/parallel_builds.hpp"
#include "kernel/build_record.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

KernelSpec cu_spec(const std::string& path) {
  KernelSpec s;
  s.kernel = path;
  s.build = true;
  s.arch = "sm_90";
  return s;
}

/// A .cu with a solve() that does nothing: a quick compile.
const char* kNoop = "extern \"C\" void solve(float* x, int n) { (void)x; (void)n; }\n";

}  // namespace

TEST(ParallelBuilds, FailedBuildCostsOnlyItsVersionAndUnchangedOnesAreNotRebuilt) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  ScopedEnv cache("KPROF_CACHE_DIR", d / "cache");
  write(d / "good.cu", kNoop);
  write(d / "bad.cu", "extern \"C\" void solve(float* x, int n) { this is not C++ }\n");
  KernelSpec unbuilt = cu_spec(d / "good.cu");
  unbuilt.build = false;  // without --build nothing is built for it
  std::vector<KernelSpec> versions = {cu_spec(d / "good.cu"), cu_spec(d / "bad.cu"), unbuilt};
  {
    ParallelBuilds pool(versions, {"good", "bad", "plain"}, 2);
    EXPECT_EQ(pool.workers(), 2u);  // two versions to build, two threads
    const VersionBuild& good = pool.wait(0);
    ASSERT_TRUE(good.result.has_value());
    EXPECT_EQ(good.result->how, "compiled");
    EXPECT_TRUE(path_exists(d / "good.so"));
    try {
      pool.wait(1);
      ADD_FAILURE() << "the broken version's build did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Failed);
      EXPECT_NE(std::string(e.what()).find("nvcc failed to compile"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(pool.wait(2).needed);
    pool.wait_all();
  }
  ParallelBuilds again({versions[0]}, {"good"}, 4);
  const VersionBuild& b = again.wait(0);
  ASSERT_TRUE(b.result.has_value());
  EXPECT_EQ(b.result->how, "up to date");
  EXPECT_EQ(build_how_text(*b.result), "up to date");
}

TEST(ParallelBuilds, CancelledPoolStartsNoFurtherBuild) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  ScopedEnv cache("KPROF_CACHE_DIR", d / "cache");
  write(d / "a.cu", kNoop);
  write(d / "b.cu", kNoop);
  // One worker: it is reading or compiling a.cu (far longer than this thread needs to cancel)
  // when the run stops: its nvcc is stopped, b.cu is never started, and nothing hangs.
  const auto t0 = std::chrono::steady_clock::now();
  ParallelBuilds pool({cu_spec(d / "a.cu"), cu_spec(d / "b.cu")}, {"a", "b"}, 1);
  pool.cancel();
  try {
    pool.wait(1);
    ADD_FAILURE() << "b.cu was built after cancel()";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not built"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pool.wait(0), Error);
  pool.wait_all();
  EXPECT_FALSE(path_exists(d / "a.so"));
  EXPECT_FALSE(path_exists(d / "b.so"));
  // Stopped, not compiled to the end: the preprocessing for the key (about 1 s) plus SIGTERM.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 8.0);
}

TEST(ParallelBuilds, HeldLinesWaitForShowLines) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  ScopedEnv cache("KPROF_CACHE_DIR", d / "cache");
  write(d / "a.cu", kNoop);
  testing::internal::CaptureStderr();
  ParallelBuilds pool({cu_spec(d / "a.cu")}, {"a"}, 1, /*hold_lines=*/true);
  pool.wait_all();
  std::string before = testing::internal::GetCapturedStderr();
  EXPECT_EQ(before.find("[a] build:"), std::string::npos) << before;
  testing::internal::CaptureStderr();
  pool.show_lines();
  std::string after = testing::internal::GetCapturedStderr();
  EXPECT_NE(after.find("[a] build: compiled"), std::string::npos) << after;
}

TEST(ParallelBuilds, AVersionWhoseImplementationDoesNotResolveIsLeftToTheValidation) {
  TempDir d;
  write(d / "k.py", "def run_kernel(**kw): pass\n");
  KernelSpec s = cu_spec(d / "k.py");
  s.implementation = "cuda-cpp";       // a .py as cuda-cpp: resolve_implementation throws
  ParallelBuilds pool({s}, {"k"}, 1);  // does not throw: validate_versions says what is wrong
  EXPECT_FALSE(pool.wait(0).needed);
  EXPECT_EQ(pool.workers(), 0u);
}
