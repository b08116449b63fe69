// `kprof clocks` logic against a fake ClockControl: which NVML calls it makes (never on a real
// GPU), what --dry-run prints, and the errors without NVML or without the privilege.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "stages/env/clocks.hpp"

using namespace kprof;

namespace {

class FakeClocks : public ClockControl {
 public:
  std::string why;  // unavailable_reason()
  std::optional<GpuClocks> now = GpuClocks{1500, 2619, 1980, 3201};
  std::optional<uint64_t> reasons = 0x1;
  std::string lock_result, reset_result;
  std::vector<std::string> calls;  // "lock MIN MAX", "reset"

  std::string unavailable_reason() const override { return why; }
  std::string label() const override { return "GPU 0 (NVML index 0, Fake GPU)"; }
  std::optional<GpuClocks> clocks() const override { return now; }
  std::optional<uint64_t> clock_event_reasons() const override { return reasons; }
  std::string lock_sm_clock(unsigned lo, unsigned hi) override {
    calls.push_back("lock " + std::to_string(lo) + " " + std::to_string(hi));
    if (lock_result.empty() && now) {
      if (hi < 0xffffff00u) now->sm_mhz = hi;  // NVML_CLOCK_LIMIT_ID_* values are not clocks
      reasons = 0x2;
    }
    return lock_result;
  }
  std::string reset_sm_clock() override {
    calls.push_back("reset");
    return reset_result;
  }
};

ClocksRequest req(ClocksAction a, bool dry = false, bool max = false) {
  ClocksRequest r;
  r.action = a;
  r.dry_run = dry;
  r.max = max;
  return r;
}

}  // namespace

TEST(Clocks, ShowPrintsCurrentAndMaxAndChangesNothing) {
  FakeClocks f;
  std::string out;
  EXPECT_EQ(run_clocks(f, req(ClocksAction::Show), out), 0);
  EXPECT_TRUE(f.calls.empty());
  EXPECT_NE(out.find("SM clock:     1500 MHz (max 1980 MHz)"), std::string::npos) << out;
  EXPECT_NE(out.find("memory clock: 2619 MHz (max 3201 MHz)"), std::string::npos) << out;
  EXPECT_NE(out.find("not active"), std::string::npos) << out;
}

TEST(Clocks, LockDefaultsToTheBaseClockForBothBounds) {
  FakeClocks f;
  std::string out;
  EXPECT_EQ(run_clocks(f, req(ClocksAction::Lock), out), 0);
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0], "lock 4294967041 4294967041");  // NVML_CLOCK_LIMIT_ID_TDP twice: nvbench's --lgc base
  EXPECT_NE(out.find("locked the SM clock at its base (TDP) clock"), std::string::npos) << out;
  EXPECT_NE(out.find("NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP"), std::string::npos) << out;
}

TEST(Clocks, LockMaxUsesTheMaximumSmClockForBothBounds) {
  FakeClocks f;
  std::string out;
  EXPECT_EQ(run_clocks(f, req(ClocksAction::Lock, false, true), out), 0);
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0], "lock 1980 1980");
  EXPECT_NE(out.find("locked the SM clock at its maximum, 1980 MHz"), std::string::npos) << out;
  EXPECT_NE(out.find("kprof clocks --reset"), std::string::npos);
  EXPECT_NE(out.find("(lock or application clocks): active"), std::string::npos) << out;
}

TEST(Clocks, DryRunLockSaysExactlyWhatAndCallsNothing) {
  FakeClocks f;
  std::string out;
  EXPECT_EQ(run_clocks(f, req(ClocksAction::Lock, true), out), 0);
  EXPECT_TRUE(f.calls.empty());
  EXPECT_NE(out.find("would lock the SM clock at its base (TDP) clock: nvmlDeviceSetGpuLockedClocks(GPU 0 (NVML "
                     "index 0, Fake GPU), NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP)"),
            std::string::npos)
      << out;
  out.clear();
  EXPECT_EQ(run_clocks(f, req(ClocksAction::Lock, true, true), out), 0);
  EXPECT_TRUE(f.calls.empty());
  EXPECT_NE(out.find("nvmlDeviceSetGpuLockedClocks(GPU 0 (NVML index 0, Fake GPU), 1980, 1980)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("dry run: nothing changed"), std::string::npos);
}

TEST(Clocks, ResetAndDryRunReset) {
  FakeClocks f;
  std::string out;
  run_clocks(f, req(ClocksAction::Reset, true), out);
  EXPECT_TRUE(f.calls.empty());
  EXPECT_NE(out.find("nvmlDeviceResetGpuLockedClocks"), std::string::npos);
  out.clear();
  run_clocks(f, req(ClocksAction::Reset), out);
  ASSERT_EQ(f.calls.size(), 1u);
  EXPECT_EQ(f.calls[0], "reset");
  EXPECT_NE(out.find("restored the default clocks"), std::string::npos);
}

TEST(Clocks, WithoutPrivilegeExitsOneAndSaysRoot) {
  FakeClocks f;
  f.lock_result = "Insufficient Permissions";
  std::string out;
  try {
    run_clocks(f, req(ClocksAction::Lock), out);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    EXPECT_NE(std::string(e.what()).find("Insufficient Permissions"), std::string::npos);
    EXPECT_NE(e.hint().find("sudo kprof clocks --lock"), std::string::npos) << e.hint();
  }
  EXPECT_EQ(f.calls.size(), 1u);
}

TEST(Clocks, NotSupportedHasItsOwnHint) {
  EXPECT_NE(clock_error_hint("Not Supported", ClocksAction::Lock).find("does not allow clock locking"),
            std::string::npos);
  EXPECT_NE(clock_error_hint("Insufficient Permissions", ClocksAction::Reset).find("--reset"), std::string::npos);
}

TEST(Clocks, NoNvmlDryRunPrintsThePlanThenFails) {
  FakeClocks f;
  f.why = "libnvidia-ml.so.1 not found: no NVIDIA driver";
  f.now.reset();
  std::string out;
  try {
    run_clocks(f, req(ClocksAction::Lock, true), out);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    EXPECT_NE(std::string(e.what()).find("no NVIDIA driver"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cannot read the clocks"), std::string::npos);  // said once, as the error
  }
  EXPECT_TRUE(f.calls.empty());
  EXPECT_EQ(out.find("cannot read the clocks"), std::string::npos) << out;
  EXPECT_NE(out.find("would lock the SM clock at its base (TDP) clock: nvmlDeviceSetGpuLockedClocks"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("dry run: nothing changed"), std::string::npos);
}

TEST(Clocks, UnreadableClocksRefuseToLock) {
  FakeClocks f;
  f.now.reset();
  std::string out;
  EXPECT_THROW(run_clocks(f, req(ClocksAction::Lock), out), Error);
  EXPECT_THROW(run_clocks(f, req(ClocksAction::Lock, false, true), out), Error);
  EXPECT_TRUE(f.calls.empty());
}
