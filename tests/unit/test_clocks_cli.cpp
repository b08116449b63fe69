// `kprof clocks` and the NVML loader end to end through the kprof binary, against a fake
// libnvidia-ml built here (KPROF_NVML_LIBRARY): the real NVML is never loaded, so no real GPU's
// clocks can change. Plus the no-driver case on a machine without NVML.
#include <gtest/gtest.h>

#include "device/cuda.hpp"
#include "core/fs.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

// The NVML entry points kprof resolves, with fixed answers; lock/reset append to $FAKE_NVML_LOG
// and return $FAKE_NVML_LOCK_RC (NVML_ERROR_NO_PERMISSION = 4).
const char* kFakeNvml = R"C(
#include <stdio.h>
#include <stdlib.h>
typedef struct nvmlDevice_st { int i; }* nvmlDevice_t;
static struct nvmlDevice_st dev0;
static void note(const char* s) {
  const char* p = getenv("FAKE_NVML_LOG");
  if (!p) return;
  FILE* f = fopen(p, "a");
  if (f) { fprintf(f, "%s\n", s); fclose(f); }
}
int nvmlInit_v2(void) { return 0; }
const char* nvmlErrorString(int rc) { return rc == 4 ? "Insufficient Permissions" : rc == 3 ? "Not Supported" : "Unknown Error"; }
int nvmlSystemGetDriverVersion(char* b, unsigned n) { snprintf(b, n, "999.12.34"); return 0; }
int nvmlDeviceGetCount_v2(unsigned* n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) { if (i) return 2; *d = &dev0; return 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char* b, nvmlDevice_t* d) { (void)b; *d = &dev0; return 0; }
int nvmlDeviceGetIndex(nvmlDevice_t d, unsigned* i) { (void)d; *i = 0; return 0; }
int nvmlDeviceGetName(nvmlDevice_t d, char* b, unsigned n) { (void)d; snprintf(b, n, "Fake GPU"); return 0; }
int nvmlDeviceGetClockInfo(nvmlDevice_t d, int t, unsigned* v) { (void)d; *v = t == 1 ? 1500 : 2619; return 0; }
int nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int t, unsigned* v) { (void)d; *v = t == 1 ? 1980 : 3201; return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long* m) { (void)d; *m = 1; return 0; }
int nvmlDeviceSetGpuLockedClocks(nvmlDevice_t d, unsigned lo, unsigned hi) {
  char s[64]; (void)d; snprintf(s, sizeof s, "lock %u %u", lo, hi); note(s);
  const char* rc = getenv("FAKE_NVML_LOCK_RC"); return rc ? atoi(rc) : 0;
}
int nvmlDeviceResetGpuLockedClocks(nvmlDevice_t d) { (void)d; note("reset"); return 0; }
)C";

class ClocksCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_on_path("cc").empty()) GTEST_SKIP() << "no C compiler (cc) to build the fake NVML";
    write(dir_ / "fake_nvml.c", kFakeNvml);
    ProcessResult r = run_process({"cc", "-shared", "-fPIC", "-o", dir_ / "fake_nvml.so", dir_ / "fake_nvml.c"});
    ASSERT_TRUE(r.ok()) << r.combined();
    env_ = {{"KPROF_NVML_LIBRARY", dir_ / "fake_nvml.so"}, {"FAKE_NVML_LOG", dir_ / "calls.log"}};
  }
  std::string calls() { return read_file_or_empty(dir_ / "calls.log"); }
  TempDir dir_;
  std::map<std::string, std::string> env_;
};

}  // namespace

TEST_F(ClocksCli, ShowsClocksThroughTheNvmlLoader) {
  ProcessResult r = run_kprof({"clocks"}, env_);
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_TRUE(contains(r.out, "Fake GPU")) << r.out;
  EXPECT_TRUE(contains(r.out, "SM clock:     1500 MHz (max 1980 MHz)")) << r.out;
  EXPECT_TRUE(contains(r.out, "memory clock: 2619 MHz (max 3201 MHz)")) << r.out;
  EXPECT_TRUE(calls().empty());
}

TEST_F(ClocksCli, DryRunLockPrintsTheCallAndMakesNone) {
  ProcessResult r = run_kprof({"clocks", "--lock", "--dry-run"}, env_);
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_TRUE(contains(r.out, "would lock the SM clock at its base (TDP) clock")) << r.out;
  EXPECT_TRUE(contains(r.out, ", NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP)")) << r.out;
  r = run_kprof({"clocks", "--lock", "--max", "--dry-run"}, env_);
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_TRUE(contains(r.out, "would lock the SM clock at its maximum, 1980 MHz")) << r.out;
  EXPECT_TRUE(contains(r.out, ", 1980, 1980)")) << r.out;
  EXPECT_TRUE(calls().empty()) << calls();
}

TEST_F(ClocksCli, LockAndResetReachNvml) {
  // Belt and braces: the fake library is the only NVML kprof loads here, but never even try a
  // non-dry-run lock on a machine with a real GPU.
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "a real GPU is present: the lock test runs only without one";
  ProcessResult r = run_kprof({"clocks", "--lock", "--max"}, env_);
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_EQ(calls(), "lock 1980 1980\n");
  r = run_kprof({"clocks", "--reset"}, env_);
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_EQ(calls(), "lock 1980 1980\nreset\n");
  r = run_kprof({"clocks", "--lock"}, env_);
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_EQ(calls(), "lock 1980 1980\nreset\nlock 4294967041 4294967041\n");
}

TEST_F(ClocksCli, NoPrivilegeExitsOneWithTheFix) {
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "a real GPU is present: the lock test runs only without one";
  auto env = env_;
  env["FAKE_NVML_LOCK_RC"] = "4";
  ProcessResult r = run_kprof({"clocks", "--lock"}, env);
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  EXPECT_TRUE(contains(r.err, "Insufficient Permissions")) << r.err;
  EXPECT_TRUE(contains(r.err, "sudo kprof clocks --lock")) << r.err;
}

TEST_F(ClocksCli, EnvReportsTheNvmlClocks) {
  ProcessResult r = run_kprof({"env", "-o", dir_ / "out/env_check.md", "--timeout", "30"}, env_);
  std::string md = read_file_or_empty(dir_ / "out/env_check.md");
  EXPECT_TRUE(contains(md, "999.12.34")) << md;
  EXPECT_TRUE(contains(md, "1500 MHz (max 1980 MHz)")) << md;
}

TEST(ClocksCliNoDriver, DryRunSaysWhatItCannotReadAndWhatItWouldDo) {
  // No NVML (as on a machine without a driver): forced by pointing the loader at nothing.
  ProcessResult r =
      run_kprof({"clocks", "--lock", "--dry-run"}, {{"KPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1"}});
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  EXPECT_TRUE(contains(r.err, "cannot read the clocks of GPU 0")) << r.err;
  EXPECT_FALSE(contains(r.out, "cannot read the clocks")) << r.out;  // once, on stderr
  EXPECT_TRUE(contains(r.out, "would lock the SM clock at its base (TDP) clock: nvmlDeviceSetGpuLockedClocks"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "dry run: nothing changed")) << r.out;
  EXPECT_TRUE(contains(r.err, "no NVIDIA driver")) << r.err;
}

TEST(ClocksCliOptions, LockAndResetTogetherIsAUsageError) {
  ProcessResult r = run_kprof({"clocks", "--lock", "--reset"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.combined(), "--lock excludes --reset")) << r.combined();
}
