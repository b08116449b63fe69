// The ncu command kprof builds and how it reads ncu's output (canned outputs; the real runs are in
// the GPU suite).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "core/fs.hpp"
#include "stages/ncu/runner.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {
bool has_pair(const std::vector<std::string>& a, const std::string& k, const std::string& v) {
  for (size_t i = 0; i + 1 < a.size(); ++i)
    if (a[i] == k && a[i + 1] == v) return true;
  return false;
}
}  // namespace

TEST(NcuCommand, NeverTouchesClocksAndProfilesOnlyTheRange) {
  NcuRunOptions o;
  o.target = {"/bin/kprof", "__runner", "k.cu", "--N=1"};
  o.metrics = {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum"};
  o.report_base = "out/profile";
  auto a = ncu_command("ncu", o);
  EXPECT_TRUE(has_pair(a, "--clock-control", "none"));
  EXPECT_TRUE(has_pair(a, "--profile-from-start", "off"));
  EXPECT_TRUE(has_pair(a, "--cache-control", "all"));
  EXPECT_TRUE(has_pair(a, "-o", "out/profile"));
  EXPECT_TRUE(has_pair(a, "--metrics", "sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum"));
  // the target comes last, unchanged
  ASSERT_GE(a.size(), 4u);
  EXPECT_EQ(a[a.size() - 4], "/bin/kprof");
  EXPECT_EQ(a.back(), "--N=1");
  EXPECT_EQ(std::count(a.begin(), a.end(), "--set"), 0);
}

TEST(NcuCommand, MetricSetsAddSectionsOrTheFullSet) {
  NcuRunOptions o;
  o.target = {"k"};
  o.report_base = "r";
  o.metric_set = "full";
  EXPECT_TRUE(has_pair(ncu_command("ncu", o), "--set", "full"));
  o.metric_set = "sections";
  auto a = ncu_command("ncu", o);
  EXPECT_TRUE(has_pair(a, "--section", "SpeedOfLight"));
  EXPECT_TRUE(has_pair(a, "--section", "Occupancy"));
  EXPECT_EQ(static_cast<size_t>(std::count(a.begin(), a.end(), "--section")), ncu_main_sections().size());
}

TEST(NcuOutput, CountsReplayPassesAndKernels) {
  NcuRunResult r;
  interpret_ncu_output(
      "==PROF== Connected to process 4242 (/bin/kprof)\n"
      "==PROF== Profiling \"vector_add\" - 0: 0%....50%....100% - 9 passes\n"
      "==PROF== Profiling \"reduce_kernel\" - 1: 0%....50%....100% - 12 passes\n"
      "==PROF== Disconnected from process 4242\n",
      0, r);
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.profiled.size(), 2u);
  EXPECT_EQ(r.profiled[1], "reduce_kernel");
  EXPECT_EQ(r.replay_passes, 12);
}

// ncu draws the progress while the passes run; a line printed meanwhile into the same stream puts
// " - 38 passes" on a line of its own. A single-line pattern then finds no profiled kernel at all,
// and `kprof profile --metrics full` of a 15 ms kernel would say "ncu profiled no kernel" although
// ncu profiled it (38 passes, report written).
TEST(NcuOutput, AProgressLineSplitByAnotherLineStillCountsItsKernel) {
  NcuRunResult r;
  interpret_ncu_output(
      "==PROF== Connected to process 4242 (/bin/kprof)\n"
      "==PROF== Profiling \"gemm_v0\" - 0: 0%....50%....\n"
      "==WARNING== a line printed while the passes ran\n"
      "....100% - 38 passes\n"
      "==PROF== Profiling \"epilogue\" - 1: 0%....50%....100% - 36 passes\n"
      "==PROF== Disconnected from process 4242\n",
      0, r);
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.profiled, (std::vector<std::string>{"gemm_v0", "epilogue"}));
  EXPECT_EQ(r.passes, (std::vector<int>{38, 36}));
  EXPECT_EQ(r.replay_passes, 38);
}

TEST(NcuOutput, AProfilingLineWithoutItsCountStillNamesAKernel) {
  NcuRunResult r;
  interpret_ncu_output("==PROF== Profiling \"k\" - 0: 0%....50%..\n==PROF== Disconnected from process 1\n", 0, r);
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.profiled, (std::vector<std::string>{"k"}));
  EXPECT_EQ(r.passes, (std::vector<int>{0}));
}

// The same through run_ncu, with a stand-in ncu that draws its progress over a slow replay and
// prints a line in the middle of it before it writes the report.
TEST(NcuRun, ALongReplayWhoseProgressIsSplitStillReadsTheReport) {
  TempDir dir;
  std::string ncu = dir / "ncu";
  write_file_atomic(ncu,
                    "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = \"-o\" ] && out=$2; shift; done\n"
                    "echo '==PROF== Connected to process 1'\n"
                    "printf '==PROF== Profiling \"gemm\" - 0: 0%%....50%%'\n"
                    "sleep 0.3\n"
                    "printf '\\n==WARNING== a line printed while the passes ran\\n'\n"
                    "printf '....100%% - 38 passes\\n'\n"
                    "touch \"$out.ncu-rep\"\n"
                    "echo '==PROF== Report: '\"$out.ncu-rep\"\n");
  ::chmod(ncu.c_str(), 0755);
  NcuRunOptions o;
  o.ncu = ncu;
  o.target = {"true"};
  o.report_base = dir / "profile";
  o.show_progress = false;
  o.metric_set = "full";
  std::string read;
  o.read_report = [&](const std::string& path) {
    read = path;
    return true;
  };
  NcuRunResult r = run_ncu(o);
  ASSERT_TRUE(r.ok()) << r.message << "\n" << r.log;
  EXPECT_EQ(read, dir / "profile.ncu-rep");
  EXPECT_EQ(r.profiled, (std::vector<std::string>{"gemm"}));
  EXPECT_EQ(r.replay_passes, 38);
}

TEST(NcuOutput, RecognisesMissingCounterPermission) {
  NcuRunResult r;
  interpret_ncu_output(
      "==PROF== Connected to process 1 (/bin/kprof)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
      "Counters on the target device 0.\n",
      1, r);
  EXPECT_EQ(r.failure, NcuFailure::NoPermission);
  EXPECT_NE(r.hint.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
}

TEST(NcuOutput, RecognisesNoKernelsProfiled) {
  NcuRunResult r;
  interpret_ncu_output("==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n", 0, r);
  EXPECT_EQ(r.failure, NcuFailure::NoKernels);
}

TEST(NcuOutput, RecognisesAFailingTarget) {
  NcuRunResult r;
  interpret_ncu_output("error: missing dimension --N=VALUE\n==ERROR== The application returned an error code (2).\n", 2,
                       r);
  EXPECT_EQ(r.failure, NcuFailure::RunnerFailed);
  EXPECT_NE(r.message.find("exit code 2"), std::string::npos);
}

TEST(NcuRun, MissingNcuIsReportedNotThrown) {
  NcuRunOptions o;
  o.ncu = "/nonexistent/ncu";
  o.target = {"/bin/true"};
  o.report_base = "/tmp/kprof_ncu_test";
  o.show_progress = false;
  auto r = run_ncu(o);
  EXPECT_EQ(r.failure, NcuFailure::NcuMissing);
  EXPECT_FALSE(r.hint.empty());
}
