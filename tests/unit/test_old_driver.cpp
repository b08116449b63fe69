// An older driver (issue 51): kprof's CUDA 13 runtime on a driver that supports only CUDA 12.8.
// The stand-in libcuda.so.1 (tests/old_driver/libcuda_12080.c, built here with the C compiler) is
// loaded by the CUDA runtime itself through LD_LIBRARY_PATH; kprof's binary then says in one line
// what was found, what is needed and the fix, and exits 1, for `kprof env` and a GPU command.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "core/subprocess.hpp"
#include "device/cuda.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using kprof::testutil::TempDir;
using kprof::testutil::write;

namespace {

const char* const kLine = "driver R570.x supports CUDA 12.8; kprof's CUDA 13 runtime needs R580 or newer";

/// Builds the stand-in libcuda.so.1 into `dir`; "" on success, else why not.
std::string build_stand_in(const std::string& dir) {
  ProcessResult r = run_process({"cc", "-shared", "-fPIC", "-o", dir + "/libcuda.so.1",
                                 std::string(KPROF_SOURCE_DIR) + "/tests/old_driver/libcuda_12080.c"},
                                {120.0});
  if (r.not_found) return "no C compiler (cc)";
  return r.ok() ? "" : r.combined();
}

}  // namespace

TEST(OldDriver, TheLineSaysWhatIsFoundWhatIsNeededAndTheFix) {
  EXPECT_EQ(driver_too_old_reason(12080, 13000),
            std::string("the NVIDIA driver is too old: ") + kLine +
                ". Fix: update the NVIDIA driver to R580 or newer (a CUDA 12 PyTorch runs on it too: newer drivers "
                "run older CUDA)");
  EXPECT_NE(driver_too_old_reason(12020, 13000).find("driver R535.x supports CUDA 12.2"), std::string::npos);
  EXPECT_NE(driver_too_old_reason(12070, 13000).find("driver supports CUDA 12.7;"), std::string::npos);
  EXPECT_EQ(driver_too_old_reason(13000, 13000), "");  // the same major: minor-version compatible
  EXPECT_EQ(driver_too_old_reason(13010, 13000), "");
  EXPECT_EQ(driver_too_old_reason(0, 13000), "");  // no driver: another message
}

TEST(OldDriver, EnvAndCheckSayItInOneLineAndExit1) {
  ASSERT_GE(CUDART_VERSION, 13000) << "this test expects kprof's CUDA 13 runtime";
  TempDir dir;
  std::string why = build_stand_in(dir.path());
  if (!why.empty()) GTEST_SKIP() << why;
  // A kernel library exporting solve, so `check` passes its file checks and reaches the GPU.
  write(dir / "vadd.c", "void solve(const float* a, const float* b, float* c, int n) {}\n");
  ASSERT_TRUE(run_process({"cc", "-shared", "-fPIC", "-o", dir / "vadd.so", dir / "vadd.c"}, {120.0}).ok());
  ProcessOptions opts{120.0};
  opts.env["LD_LIBRARY_PATH"] = dir.path();
  opts.cwd = dir.path();
  const std::string ex = KPROF_EXAMPLES_DIR;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"env"},
                                               {"check", ex + "/cuda/vector_add/vector_add.cu", "--ref",
                                                ex + "/cuda/vector_add/ref.py", "--N=8", "--so", dir / "vadd.so"}}) {
    std::vector<std::string> argv{KPROF_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = run_process(argv, opts);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.combined();
    EXPECT_NE(r.combined().find(kLine), std::string::npos) << args[0] << ": " << r.combined();
    EXPECT_NE(r.combined().find("Fix: update the NVIDIA driver"), std::string::npos) << r.combined();
    // One fix: no hint that sends the user to another machine.
    EXPECT_EQ(r.combined().find("on a machine with an NVIDIA GPU"), std::string::npos) << r.combined();
  }
}
