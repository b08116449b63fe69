// The build cache: unchanged inputs are never compiled again, an edited header is, a
// touched file is not, and the same build under another path is copied from the cache. Real
// nvcc compiles (no GPU needed).
#include <gtest/gtest.h>

#include <sys/time.h>

#include "core/fs.hpp"
#include "core/tools.hpp"
#include "kernel/build.hpp"
#include "kernel/build_cache.hpp"
#include "kernel/build_record.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

const char* kKernel = R"(#include <cuda_runtime.h>
#include "scale.h"
__global__ void scale_k(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= SCALE;
}
extern "C" void solve(float* x, int n) { scale_k<<<(n + 255) / 256, 256>>>(x, n); }
)";

BuildOptions options(const std::string& source, const std::string& output) {
  BuildOptions o;
  o.source = source;
  o.output = output;
  o.arch = "sm_90";
  o.echo = false;
  return o;
}

}  // namespace

TEST(BuildCache, UnchangedInputsAreNotCompiledAgain) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  ScopedEnv cache("KPROF_CACHE_DIR", d / "cache");
  write(d / "scale.h", "#define SCALE 2.0f\n");
  write(d / "k.cu", kKernel);
  BuildResult first = build_kernel(options(d / "k.cu", d / "k.so"));
  EXPECT_EQ(first.how, "compiled");
  auto rec = read_build_record(d / "k.so", d / "k.cu");
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->key.size(), 16u);
  EXPECT_TRUE(path_exists(join_path(build_cache_dir(), rec->key + ".so")));

  // Same inputs: nothing runs. A touched source (new mtime, same text) is still the same build.
  EXPECT_EQ(build_kernel(options(d / "k.cu", d / "k.so")).how, "up to date");
  struct timeval tv[2] = {{2000000000, 0}, {2000000000, 0}};
  ::utimes((d / "k.cu").c_str(), tv);
  EXPECT_EQ(build_kernel(options(d / "k.cu", d / "k.so")).how, "up to date");

  // The same build written elsewhere: copied from the cache, with its own record.
  BuildResult copy = build_kernel(options(d / "k.cu", d / "other.so"));
  EXPECT_EQ(copy.how, "cache");
  EXPECT_EQ(read_file(d / "other.so"), read_file(d / "k.so"));
  ASSERT_TRUE(read_build_record(d / "other.so", d / "k.cu").has_value());

  // An edited header changes the build (file times alone would miss it); other flags change the
  // key too (KeysFollowTheInputs, without a compile).
  write(d / "scale.h", "#define SCALE 3.0f\n");
  EXPECT_EQ(build_kernel(options(d / "k.cu", d / "k.so")).how, "compiled");
  // Back to the first header: that build is in the cache.
  write(d / "scale.h", "#define SCALE 2.0f\n");
  EXPECT_EQ(build_kernel(options(d / "k.cu", d / "k.so")).how, "cache");
}

TEST(BuildCache, KeysFollowTheInputs) {
  TempDir d;
  write(d / "a.cu", "extern \"C\" void solve(float* x, int n) {}\n");
  std::vector<std::string> argv = {"nvcc", "-O3", "-arch=sm_90", "-o", d / "a.so", d / "a.cu"};
  std::string k1 = build_key(argv, d / "a.cu");
  ASSERT_EQ(k1.size(), 16u);
  argv[4] = d / "elsewhere.so";  // the output path is not an input
  EXPECT_EQ(build_key(argv, d / "a.cu"), k1);
  argv[1] = "-O2";
  EXPECT_NE(build_key(argv, d / "a.cu"), k1);
  argv[1] = "-O3";
  write(d / "a.cu", "extern \"C\" void solve(float* x, int n) { }\n");
  EXPECT_NE(build_key(argv, d / "a.cu"), k1);
  EXPECT_EQ(build_key(argv, d / "missing.cu"), "");
}
