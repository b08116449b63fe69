// run_ncu's hooks against a stand-in ncu (a shell script): the report read that makes
// the CSV export unneeded (read_report), the output held back until a standby session is released
// (hold_output) and the limit counted from the release (stop_when).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "stages/ncu/runner.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// A stand-in for ncu: `--import` marks DIR/exporting while it "exports" (0.8 s), then prints one CSV
/// row; a profiling run prints ncu's progress lines, sleeps $FAKE_NCU_SLEEP seconds and writes the
/// report named by -o.
std::string fake_ncu(const TempDir& dir) {
  std::string path = dir / "ncu";
  write_file_atomic(path,
                    "#!/bin/sh\n"
                    "case \" $* \" in *\" --import \"*)\n"
                    "  touch \"" +
                        dir.path() + "/exporting\"; sleep 0.8; rm -f \"" + dir.path() +
                        "/exporting\"\n"
                        "  echo '\"ID\",\"Kernel Name\"'; echo '\"0\",\"k\"'; exit 0;;\n"
                        "esac\n"
                        "while [ $# -gt 0 ]; do [ \"$1\" = \"-o\" ] && out=$2; shift; done\n"
                        "echo '==PROF== Connected to process 1'\n"
                        "sleep ${FAKE_NCU_SLEEP:-0.2}\n"
                        "echo '==PROF== Profiling \"k\" - 0: 0%....50%....100% - 3 passes'\n"
                        "touch \"$out.ncu-rep\"\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

NcuRunOptions options(const TempDir& dir) {
  NcuRunOptions o;
  o.ncu = fake_ncu(dir);
  o.target = {"true"};
  o.report_base = dir / "profile";
  o.show_progress = false;
  o.timeout_s = 60;
  return o;
}

}  // namespace

TEST(NcuRunOverlap, AReportReadWithItsMetricsNeedsNoCsvExport) {
  TempDir dir;
  NcuRunOptions o = options(dir);
  std::string seen_path;
  o.read_report = [&](const std::string& path) {
    seen_path = path;
    return true;  // it read the launches' metrics
  };
  auto t0 = std::chrono::steady_clock::now();
  NcuRunResult r = run_ncu(o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(seen_path, dir / "profile.ncu-rep");
  EXPECT_TRUE(r.metrics_from_report);
  EXPECT_TRUE(r.csv.empty());
  EXPECT_EQ(r.export_wall_s, 0.0);
  EXPECT_LT(s, 0.75);  // the stand-in's export alone takes 0.8 s: it did not run
  EXPECT_EQ(r.replay_passes, 3);
}

TEST(NcuRunOverlap, AFailedReadFallsBackToTheCsvExport) {
  TempDir dir;
  NcuRunOptions o = options(dir);
  bool read = false;
  o.read_report = [&](const std::string&) { return !(read = true); };  // no ncu_report, say
  NcuRunResult r = run_ncu(o);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(read);
  EXPECT_FALSE(r.metrics_from_report);
  EXPECT_NE(r.csv.find("\"k\""), std::string::npos);
  EXPECT_GT(r.export_wall_s, 0.5);
}

TEST(NcuRunOverlap, AReaderErrorComesOutWithoutAnExport) {
  TempDir dir;
  NcuRunOptions o = options(dir);
  o.read_report = [](const std::string&) -> bool { throw usage_error("reader failed"); };
  EXPECT_THROW(run_ncu(o), Error);
  EXPECT_FALSE(path_exists(dir / "exporting"));
}

TEST(NcuRunOverlap, HeldOutputIsShownOnlyOnceReleased) {
  TempDir dir;
  NcuRunOptions o = options(dir);
  o.show_progress = true;
  std::atomic<bool> released{false};
  o.hold_output = &released;
  testing::internal::CaptureStderr();
  NcuRunResult never = run_ncu(o);  // never released: a cancelled standby says nothing
  std::string quiet = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(never.ok());
  EXPECT_EQ(quiet.find("==PROF=="), std::string::npos) << quiet;

  released = true;
  testing::internal::CaptureStderr();
  run_ncu(o);
  std::string shown = testing::internal::GetCapturedStderr();
  EXPECT_NE(shown.find("  | ==PROF== Connected"), std::string::npos) << shown;
}

TEST(NcuRunOverlap, StopWhenEndsTheRunAsATimeout) {
  TempDir dir;
  ScopedEnv slow("FAKE_NCU_SLEEP", "30");
  NcuRunOptions o = options(dir);
  o.timeout_s = 7;  // only named in the message: stop_when bounds the run
  o.stop_when = [](double elapsed) { return elapsed > 0.5; };
  auto t0 = std::chrono::steady_clock::now();
  NcuRunResult r = run_ncu(o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.failure, NcuFailure::Timeout);
  EXPECT_NE(r.message.find("within 7 s"), std::string::npos) << r.message;
  EXPECT_LT(s, 20);
}
