// The environment's counter probe as the first launch of `kprof run`'s standby ncu session
// (stages/ncu/session_probe.hpp): its outcome read from ncu's and the runner's output,
// and its row kept out of the versions' split.
#include <gtest/gtest.h>

#include "stages/ncu/session_probe.hpp"

using namespace kprof;

namespace {
const std::string kCommand = "ncu --clock-control none -o run kprof __session plan.json --probe";
const std::string kConnected = "==PROF== Connected to process 4242 (/usr/local/bin/kprof)\n";
const std::string kProfiled = "==PROF== Profiling \"kprof_probe_kernel\" - 0: 0%....50%....100% - 22 passes\n";
}  // namespace

TEST(SessionProbe, MarksReadBackWithAPrefix) {
  EXPECT_TRUE(is_session_probe_mark("  | " + session_probe_mark()));
  EXPECT_TRUE(is_session_probe_mark(session_probe_mark("cudaErrorNoDevice: no CUDA-capable device")));
  EXPECT_FALSE(is_session_probe_mark("==KPROF== session done v0"));
  // The failure's reason stays on one line.
  EXPECT_EQ(session_probe_mark("a\nb").find('\n'), std::string::npos);
}

TEST(SessionProbe, ReadableWhenTheProbeWasProfiledAndMarkedDone) {
  NcuCounters c = session_probe_counters(kConnected + kProfiled + session_probe_mark() + "\n", false, false, kCommand);
  EXPECT_TRUE(c.checked);
  EXPECT_TRUE(c.readable) << c.error;
  EXPECT_TRUE(c.probed_in_session);
  EXPECT_TRUE(c.error.empty());
  EXPECT_EQ(c.command, kCommand);
}

TEST(SessionProbe, OnePassIsAlsoAProfiledLaunch) {
  std::string one = "==PROF== Profiling \"kprof_probe_kernel\" - 0: 0%....50%....100% - 1 pass\n";
  EXPECT_TRUE(session_probe_counters(one + session_probe_mark() + "\n", false, false, kCommand).readable);
}

TEST(SessionProbe, ADoneMarkWithoutAProfiledLaunchIsNotReadable) {
  // The runner launched it, but ncu did not profile it (no "==PROF== Profiling" line for it).
  NcuCounters c = session_probe_counters(kConnected + session_probe_mark() + "\n", false, false, kCommand);
  EXPECT_FALSE(c.readable);
  EXPECT_FALSE(c.error.empty());
}

TEST(SessionProbe, PermissionDeniedGivesNvidiasFix) {
  std::string out = kConnected +
                    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
                    "Counters on the target device 0.\n" +
                    session_probe_mark() + "\n";
  NcuCounters c = session_probe_counters(out, false, false, kCommand);
  EXPECT_FALSE(c.readable);
  EXPECT_TRUE(c.permission_denied);
  EXPECT_NE(c.fix.find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos) << c.fix;
}

TEST(SessionProbe, PermissionDeniedWhenNcuEndedBeforeTheMark) {
  // What tests/gpu/fake_ncu_noperm.sh prints and does: the error, then exit 1 before any mark.
  std::string out = kConnected + "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n";
  NcuCounters c = session_probe_counters(out, true, false, kCommand);
  EXPECT_TRUE(c.permission_denied);
  EXPECT_FALSE(c.readable);
}

TEST(SessionProbe, CountersHeldByAnotherProfiler) {
  std::string out = kConnected +
                    "==ERROR== Profiling failed because a driver resource was unavailable. Ensure that no other tool "
                    "(like DCGM) is concurrently collecting profiling data.\n" +
                    session_probe_mark() + "\n";
  NcuCounters c = session_probe_counters(out, false, false, kCommand);
  EXPECT_FALSE(c.readable);
  EXPECT_NE(c.error.find("busy"), std::string::npos) << c.error;
  EXPECT_NE(c.fix.find("dcgmi profile --pause"), std::string::npos) << c.fix;
}

TEST(SessionProbe, TheRunnersOwnFailureIsNamed) {
  std::string out = kConnected + session_probe_mark("cudaErrorLaunchFailure: unspecified launch failure") + "\n";
  NcuCounters c = session_probe_counters(out, false, false, kCommand);
  EXPECT_FALSE(c.readable);
  EXPECT_NE(c.error.find("unspecified launch failure"), std::string::npos) << c.error;
  EXPECT_NE(c.fix.find("kprof env"), std::string::npos) << c.fix;
}

TEST(SessionProbe, NcuThatEndedOrWasStoppedFirst) {
  NcuCounters ended = session_probe_counters(kConnected, true, false, kCommand);
  EXPECT_FALSE(ended.readable);
  EXPECT_NE(ended.error.find("ended before"), std::string::npos) << ended.error;
  NcuCounters stopped = session_probe_counters(kConnected, false, true, kCommand);
  EXPECT_FALSE(stopped.readable);
  EXPECT_NE(stopped.error.find("time limit"), std::string::npos) << stopped.error;
}

TEST(SessionProbe, TheProbesRowsAreLeftOutOfTheSplit) {
  std::vector<SessionRow> rows = {
      {0, "kprof_probe_kernel", kSessionProbeRange}, {1, "attention_v0", "kprof:v0"}, {2, "attention_v1", "kprof:v1"}};
  auto kept = without_probe_rows(rows);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].id, 1);
  EXPECT_EQ(kept[1].id, 2);
  // Read without NVTX ranges (ncu's CSV export): known by its kernel's name.
  auto by_name = without_probe_rows({{0, "kprof_probe_kernel(unsigned int *)", ""}, {1, "attention_v0", ""}});
  ASSERT_EQ(by_name.size(), 1u);
  EXPECT_EQ(by_name[0].id, 1);
  // With the split of the rest still by range: every remaining row carries a version's range.
  SessionSplit split = split_session_rows(
      kept, {{"v0", {"attention_v0"}, SessionState::Done}, {"v1", {"attention_v1"}, SessionState::Done}});
  EXPECT_TRUE(split.attributed(0));
  EXPECT_TRUE(split.attributed(1));
}
