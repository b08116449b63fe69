// The ncu command kprof builds and how it reads ncu's output (canned outputs; the real runs are in
// the GPU suite).
#include <gtest/gtest.h>

#include <algorithm>

#include "stages/ncu/runner.hpp"

using namespace kprof;

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
