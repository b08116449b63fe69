// `kprof __session --standby`: the process ncu profiles for `kprof run` starts early,
// waits without GPU work for the final plan, and ends at once when the run cancels it or ends.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/fs.hpp"
#include "stages/ncu/session.hpp"
#include "stages/ncu/session_probe.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// A plan of one cuda-cpp version (a kernel file that need not load: the standby only reads it).
std::string write_prelim(const TempDir& dir) {
  std::string cu = std::string(KPROF_SOURCE_DIR) + "/examples/attention/cuda/v0.cu";
  std::string path = dir / "prelim.json";
  write_file_atomic(
      path,
      session_plan_json({{"v0", {{"kernel", cu}, {"dims", {{"N", "16"}, {"d_model", "16"}, {"heads", "1"}}}}}}).dump());
  return path;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(NcuStandby, ACancelledStandbyEndsWithoutProfiling) {
  TempDir dir;
  std::string prelim = write_prelim(dir), go = dir / "go.json";
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    write_file_atomic(go, R"({"cancel": "the run stopped"})");
  });
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_kprof({"__session", prelim, "--standby", go, "--parent", std::to_string(::getpid())}, {}, "", 60);
  release.join();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "==KPROF== session standing by")) << r.err;
  EXPECT_FALSE(contains(r.err, "session done")) << r.err;  // no version ran
  EXPECT_GE(seconds_since(t0), 1.4);                       // it waited for the file
}

TEST(NcuStandby, EndsWhenTheRunHasEnded) {
  TempDir dir;
  std::string prelim = write_prelim(dir);
  pid_t gone = ::fork();  // a process that has ended: the standby's "parent"
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  auto t0 = std::chrono::steady_clock::now();
  auto r =
      run_kprof({"__session", prelim, "--standby", dir / "never.json", "--parent", std::to_string(gone)}, {}, "", 60);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LT(seconds_since(t0), 30);
}

TEST(NcuStandby, TheFinalPlanIsRunOnceReleased) {
  // On this machine the version cannot load (no GPU or no .so): the session says so for it, which
  // shows that the final plan, not the preliminary one, was run.
  TempDir dir;
  std::string prelim = write_prelim(dir), go = dir / "go.json";
  std::string cu = std::string(KPROF_SOURCE_DIR) + "/examples/attention/cuda/v1.cu";
  write_file_atomic(
      go,
      session_plan_json({{"final-v1", {{"kernel", cu}, {"dims", {{"N", "16"}, {"d_model", "16"}, {"heads", "1"}}}}}})
          .dump());
  auto r = run_kprof({"__session", prelim, "--standby", go, "--parent", std::to_string(::getpid())}, {}, "", 60);
  EXPECT_TRUE(contains(r.err, "final-v1")) << r.err;
  EXPECT_FALSE(contains(r.err, " v0")) << r.err;
  if (!path_exists("/dev/nvidia0")) EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(NcuStandby, WithProbeItMarksTheCounterProbeBeforeStandingBy) {
  // `--probe`: the environment's counter probe comes first (stages/ncu/session_probe.hpp). On a
  // machine without a GPU it cannot run: the mark says why, then the standby waits as always.
  TempDir dir;
  std::string prelim = write_prelim(dir), go = dir / "go.json";
  write_file_atomic(go, R"({"cancel": "the run stopped"})");
  auto r =
      run_kprof({"__session", prelim, "--standby", go, "--parent", std::to_string(::getpid()), "--probe"}, {}, "", 60);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto mark = r.err.find("==KPROF== session probe ");
  ASSERT_NE(mark, std::string::npos) << r.err;
  EXPECT_LT(mark, r.err.find("==KPROF== session standing by")) << r.err;
  if (!path_exists("/dev/nvidia0")) {
    EXPECT_TRUE(contains(r.err, "==KPROF== session probe failed: ")) << r.err;
    NcuCounters c = session_probe_counters(r.err, false, false, "ncu ...");
    EXPECT_FALSE(c.readable);
    EXPECT_TRUE(contains(c.error, "probe kernel failed")) << c.error;
  }
}
