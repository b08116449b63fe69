// `kprof run`'s whole flow on a CPU (issue 48 item 4): RunWorkflow driven through RunPorts
// (flows/run/run_ports.hpp) with fakes standing for the builds, the environment check, ref.py, the
// GPU's loads, checks and timings, ncu and the --decide rounds. What the GPU itself does is tested
// on a GPU (tests/gpu/); these tests cover the flow's decisions: which version runs, which result is
// shown when, what is dropped, the exit code and comparison.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "fake_kernel.hpp"
#include "core/fs.hpp"
#include "flows/run/run_ports.hpp"
#include "flows/run/run_workflow.hpp"
#include "test_env_util.hpp"

using namespace kprof;
using kprof::testutil::TempDir;

namespace {

using testutil::FakeKernel;

/// What a fake version does in its check.
enum class CheckScript { Pass, Fail, Hang };

/// RunPorts with scripted outcomes per version (by kernel path) and a log of the steps taken.
class FakePorts final : public RunPorts {
 public:
  std::map<std::string, CheckScript> verdicts;  ///< kernel path -> its check (default Pass)
  std::map<std::string, double> call_ms;        ///< kernel path -> its timed call, ms (default 1.0)
  bool env_passes = true;
  bool env_ended = true;          ///< env_done() before env_wait()
  int reference_ready_after = 0;  ///< ref.py's load ends once this many versions were loaded
  size_t free_bytes = size_t(1) << 30;
  bool lost = false;
  std::vector<std::string> log;               ///< "load v0.cu", "check v0.cu", "time v0.cu", ...
  std::vector<std::string> pending_profiled;  ///< the versions profile_pending was given, by name
  int builds_cancelled = 0;
  int env_waits = 0;
  int rounds_measured = 0;

  std::map<size_t, Error> build_errors;  ///< version index -> what its build threw
  bool gpu_usable = true;                ///< false: select_gpu throws as on a machine without a GPU
  std::vector<size_t> builds_waited;     ///< the versions whose build was waited for, in order

  const VersionBuild& wait_build(size_t i) override {
    builds_waited.push_back(i);
    if (auto e = build_errors.find(i); e != build_errors.end()) throw e->second;
    return build_;
  }
  void wait_all_builds() override {}
  void cancel_builds() override { ++builds_cancelled; }
  bool env_wait() override {
    ++env_waits;
    env_ended = true;
    return env_passes;
  }
  bool env_done() const override { return env_ended; }
  void wait_gpu_probes() override {}
  bool reference_ready() const override { return loads_ >= reference_ready_after; }
  bool reference_failed() const override { return false; }
  std::string import_python(const std::string& module) override { return module; }
  void select_gpu(int) override {
    if (!gpu_usable) throw check_failed("no CUDA driver/GPU: the NVIDIA driver library is not installed");
  }
  std::unique_ptr<KernelInstance> load(const KernelSpec& spec) override {
    log.push_back("load " + base(spec.kernel));
    ++loads_;
    auto k = std::make_unique<FakeKernel>();
    kernels_[k.get()] = spec.kernel;
    return k;
  }
  size_t free_device_bytes() override { return free_bytes; }
  bool gpu_lost() const override { return lost; }
  CheckResult check(KernelInstance& inst, const CheckOptions&) override {
    const std::string& kernel = kernels_.at(&inst);
    log.push_back("check " + base(kernel));
    CheckResult r;
    const CheckScript v = verdicts.count(kernel) ? verdicts.at(kernel) : CheckScript::Pass;
    r.pass = v == CheckScript::Pass;
    if (v == CheckScript::Fail) {
      TrialResult t;
      OutputComparison c;
      c.name = "C";
      c.pass = false;
      c.reason = "3 of 8 elements off";
      t.outputs.push_back(c);
      r.trials.push_back(t);
    }
    if (v == CheckScript::Hang) {
      r.fault = KernelFault{FaultKind::Timeout, "", "the call did not return within 10 s", "", false};
      lost = true;  // what guarded_call does after a timeout (request_hard_exit)
    }
    return r;
  }
  PendingProfile time_for_session(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings&,
                                  const std::string& name, const std::string& dir, bool) override {
    log.push_back("time " + base(kernels_.at(&inst)));
    PendingProfile p;
    p.name = name;
    p.dir = dir;
    p.spec = spec;
    p.out.timing = timing(spec.kernel);
    return p;
  }
  WorkModel call_work(const KernelInstance&, const KernelSpec&, const std::string&,
                      std::vector<std::string>&) override {
    return {};
  }
  ProfileOutcome profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings&, const std::string&,
                         std::vector<std::pair<std::string, std::string>>) override {
    log.push_back("profile " + base(kernels_.at(&inst)));
    ProfileOutcome o;
    o.timing = timing(spec.kernel);
    return o;
  }
  bool has_standby() override { return false; }
  void profile_pending(std::vector<PendingProfile>& pending, const ProfileSettings&, const std::string&, bool,
                       const std::function<void(const std::vector<PendingProfile>&)>&,
                       const std::function<bool()>& go_on) override {
    if (go_on && !go_on()) return;
    for (auto& p : pending) {
      pending_profiled.push_back(p.name);
      p.out.failure = "fake ncu: not run on the CPU";
    }
  }
  /// Rounds in which each version takes its call_ms (the A/A arm the baseline's).
  RoundTiming measure_rounds(const std::vector<KernelInstance*>& versions, const TimingOptions&, const RoundOptions&,
                             int, bool, KernelInstance*) override {
    ++rounds_measured;
    RoundTiming t;
    t.rounds.versions = static_cast<int>(versions.size());
    t.rounds.aa_arm = true;
    t.rounds.stopped_by = "rounds";
    for (int r = 0; r < 10; ++r) {
      Round round;
      for (size_t a = 0; a <= versions.size(); ++a) {
        round.order.push_back(static_cast<int>(a));
        round.ms.push_back(timing(kernels_.at(versions[a == versions.size() ? 0 : a])).call.median);
      }
      t.rounds.rounds.push_back(round);
    }
    return t;
  }

 private:
  static std::string base(const std::string& path) { return std::filesystem::path(path).filename().string(); }
  TimingResult timing(const std::string& kernel) const {
    TimingResult t;
    t.call.median = call_ms.count(kernel) ? call_ms.at(kernel) : 1.0;
    return t;
  }
  VersionBuild build_;  ///< not needed: the fake versions are not built
  int loads_ = 0;
  std::map<const KernelInstance*, std::string> kernels_;
};

/// A run of `n` compiled versions (DIR/v0.cu ...) in DIR/out, timed without ncu, one at a time.
RunRequest request(const TempDir& dir, int n) {
  RunRequest req;
  req.output_dir = dir / "out";
  req.ref = dir / "ref.py";
  testutil::write(req.ref, "def reference(**kw): pass\n");
  for (int i = 0; i < n; ++i) {
    KernelSpec s;
    s.kernel = dir / ("v" + std::to_string(i) + ".cu");
    s.build = false;
    testutil::write(s.kernel, "extern \"C\" void solve(const float* A, float* C, int N) {}\n");
    req.versions.push_back(s);
  }
  req.profile.run_ncu = false;
  req.profile.roofline = false;
  req.one_ncu_session = false;
  make_dirs(req.output_dir);
  return req;
}

/// The run's versions with one ncu session (the default): timed first, ncu once for all of them.
RunRequest one_session_request(const TempDir& dir, int n) {
  RunRequest req = request(dir, n);
  req.profile.run_ncu = true;
  req.one_ncu_session = true;
  return req;
}

bool exists(const std::string& path) { return std::filesystem::exists(path); }

}  // namespace

TEST(RunFlowFakes, AVersionThatFailsItsCheckIsNotTimedAndTheRunExitsOne) {
  TempDir dir;
  RunRequest req = request(dir, 3);
  FakePorts ports;
  ports.verdicts[req.versions[1].kernel] = CheckScript::Fail;
  RunOutcome out = drive_run(req, ports);
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_TRUE(out.env_ready);
  EXPECT_EQ(out.rows[0].status, VersionStatus::Pass);
  EXPECT_EQ(out.rows[1].status, VersionStatus::Fail);
  EXPECT_EQ(out.rows[1].status_reason, "C: 3 of 8 elements off");
  EXPECT_EQ(out.rows[2].status, VersionStatus::Pass);
  EXPECT_EQ(out.exit_code, 1);
  // The baseline is loaded a second time for the rounds' A/A arm: with two or more versions, run's
  // verdicts between versions come from interleaved rounds (issue 49 item 1), over the correct ones.
  EXPECT_EQ(ports.log,
            (std::vector<std::string>{"load v0.cu", "check v0.cu", "load v0.cu", "profile v0.cu", "load v1.cu",
                                      "check v1.cu", "load v2.cu", "check v2.cu", "profile v2.cu"}));
  EXPECT_TRUE(exists(dir / "out/v1/correctness.json"));
  EXPECT_TRUE(exists(dir / "out/comparison.json"));
  EXPECT_TRUE(out.decision.has_value());  // the rounds' verdicts, without --decide too
}

TEST(RunFlowFakes, EveryVersionCorrectExitsZeroWithTheirTimes) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  FakePorts ports;
  ports.call_ms[req.versions[1].kernel] = 0.5;
  RunOutcome out = drive_run(req, ports);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_DOUBLE_EQ(out.rows[0].call_ms.value_or(0), 1.0);
  EXPECT_DOUBLE_EQ(out.rows[1].call_ms.value_or(0), 0.5);
  EXPECT_TRUE(testutil::contains(read_file(dir / "out/comparison.json"), "\"v1\""));
}

TEST(RunFlowFakes, AHangStopsTheVersionsAfterItWithTheReason) {
  TempDir dir;
  RunRequest req = request(dir, 3);
  FakePorts ports;
  ports.verdicts[req.versions[0].kernel] = CheckScript::Hang;
  RunOutcome out = drive_run(req, ports);
  ASSERT_EQ(out.rows.size(), 3u);
  EXPECT_EQ(out.rows[0].status, VersionStatus::Fail);
  ASSERT_TRUE(out.rows[0].fault.has_value());
  EXPECT_EQ(*out.rows[0].fault, FaultKind::Timeout);
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(out.rows[i].status, VersionStatus::NotRun);
    EXPECT_EQ(out.rows[i].status_reason, "v0 left the GPU unusable (hung kernel or lost context)");
  }
  EXPECT_EQ(ports.log, (std::vector<std::string>{"load v0.cu", "check v0.cu"}));  // nothing after the hang
  EXPECT_EQ(out.exit_code, 1);
}

TEST(RunFlowFakes, VersionsTimedWhileRefPyLoadsAreCheckedLaterAndAFailureLosesItsTiming) {
  TempDir dir;
  RunRequest req = one_session_request(dir, 3);
  FakePorts ports;
  ports.reference_ready_after = 3;  // ref.py is there once the third version loaded
  ports.verdicts[req.versions[0].kernel] = CheckScript::Fail;
  RunOutcome out = drive_run(req, ports);
  ASSERT_EQ(out.rows.size(), 3u);
  // v0 and v1 are timed before their checks; the checks run, in order, before v2's.
  EXPECT_EQ(ports.log, (std::vector<std::string>{"load v0.cu", "time v0.cu", "load v1.cu", "time v1.cu", "load v2.cu",
                                                 "check v0.cu", "check v1.cu", "check v2.cu", "time v2.cu"}));
  EXPECT_EQ(out.rows[0].status, VersionStatus::Fail);
  EXPECT_FALSE(out.rows[0].call_ms.has_value());  // its timing is not a result
  EXPECT_EQ(out.rows[1].status, VersionStatus::Pass);
  EXPECT_DOUBLE_EQ(out.rows[1].call_ms.value_or(0), 1.0);
  EXPECT_EQ(ports.pending_profiled, (std::vector<std::string>{"v1", "v2"}));  // ncu never sees v0
}

TEST(RunFlowFakes, NoVersionIsTimedBeforeItsCheckWhenItsBuffersWouldCrowdTheDevice) {
  TempDir dir;
  RunRequest req = one_session_request(dir, 2);
  FakePorts ports;
  ports.reference_ready_after = 5;
  ports.free_bytes = 64;  // two buffers of 8 floats hold 64 bytes: more than half of it
  RunOutcome out = drive_run(req, ports);
  // (the second load of v0 is the rounds' A/A arm, after its check)
  EXPECT_EQ(ports.log, (std::vector<std::string>{"load v0.cu", "check v0.cu", "load v0.cu", "time v0.cu", "load v1.cu",
                                                 "check v1.cu", "time v1.cu"}));
  EXPECT_EQ(out.rows[1].status, VersionStatus::Pass);
}

TEST(RunFlowFakes, DecideWithOneCorrectVersionRunsNoRoundsAndSaysWhy) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  req.decide.enabled = true;
  FakePorts ports;
  ports.verdicts[req.versions[1].kernel] = CheckScript::Fail;
  RunOutcome out = drive_run(req, ports);
  ASSERT_TRUE(out.decision.has_value());
  EXPECT_FALSE(out.decision->not_run.empty());
  EXPECT_EQ(ports.rounds_measured, 0);
  // The baseline is loaded twice (its A/A arm), timed in the rounds only: no profile step.
  EXPECT_EQ(ports.log,
            (std::vector<std::string>{"load v0.cu", "check v0.cu", "load v0.cu", "load v1.cu", "check v1.cu"}));
  EXPECT_TRUE(testutil::contains(read_file(dir / "out/comparison.json"), "\"decision\""));
  EXPECT_EQ(out.exit_code, 1);
}

TEST(RunFlowFakes, DecideWithTwoCorrectVersionsTimesTheRounds) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  req.decide.enabled = true;
  FakePorts ports;
  ports.call_ms[req.versions[1].kernel] = 0.5;
  RunOutcome out = drive_run(req, ports);
  ASSERT_TRUE(out.decision.has_value());
  EXPECT_EQ(ports.rounds_measured, 1);
  EXPECT_EQ(ports.log,
            (std::vector<std::string>{"load v0.cu", "check v0.cu", "load v0.cu", "load v1.cu", "check v1.cu"}));
  // Without --decide-ncu the rows' times are the rounds' call times.
  EXPECT_DOUBLE_EQ(out.rows[0].call_ms.value_or(0), 1.0);
  EXPECT_DOUBLE_EQ(out.rows[1].call_ms.value_or(0), 0.5);
  EXPECT_EQ(out.rows[1].call_samples_ms.size(), 10u);
}

TEST(RunFlowFakes, ResultsWaitForTheEnvironmentAndAppearOnceItPassed) {
  TempDir dir;
  RunRequest req = one_session_request(dir, 2);
  FakePorts ports;
  ports.env_ended = false;  // the environment check still runs while the versions are checked
  RunOutcome out;
  RunWorkflow flow(req, out, ports);
  flow.run_versions();
  EXPECT_EQ(ports.env_waits, 0);
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_FALSE(exists(dir / "out/v0/correctness.json"));  // checked, not yet shown
  EXPECT_FALSE(exists(dir / "out/v1/correctness.json"));
  ASSERT_TRUE(flow.env_ready());
  EXPECT_TRUE(exists(dir / "out/v0/correctness.json"));
  EXPECT_TRUE(exists(dir / "out/v1/correctness.json"));
}

TEST(RunFlowFakes, AFailedEnvironmentShowsNothingOfTheVersions) {
  TempDir dir;
  RunRequest req = one_session_request(dir, 2);
  FakePorts ports;
  ports.env_ended = false;
  ports.env_passes = false;
  RunOutcome out = drive_run(req, ports);
  EXPECT_FALSE(out.env_ready);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(ports.builds_cancelled, 1);
  EXPECT_TRUE(ports.pending_profiled.empty());  // ncu never ran
  EXPECT_FALSE(exists(dir / "out/v0/correctness.json"));
  EXPECT_FALSE(exists(dir / "out/comparison.json"));
}

namespace {

/// drive_run with what it printed on stderr.
std::pair<RunOutcome, std::string> drive_run_said(const RunRequest& req, FakePorts& ports) {
  testing::internal::CaptureStderr();
  RunOutcome out = drive_run(req, ports);
  return {out, testing::internal::GetCapturedStderr()};
}

}  // namespace

// A compile error is the user's mistake and needs no GPU: without one, the run says it (nvcc's
// messages, exit 1 as `kprof build`) before the environment's blockers, not only those.
TEST(RunFlowFakes, WithoutAGpuACompileErrorIsSaidBeforeTheEnvironment) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  for (auto& v : req.versions) v.arch = "sm_90";  // without a GPU only --arch lets nvcc run
  FakePorts ports;
  ports.gpu_usable = false;
  ports.env_passes = false;
  ports.build_errors.emplace(0,
                             check_failed("nvcc failed to compile v0.cu (exit 2):\nv0.cu(1): error: expected a \";\"",
                                          "fix the errors nvcc reports above"));
  const auto [out, err] = drive_run_said(req, ports);
  EXPECT_FALSE(out.env_ready);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(ports.builds_waited, (std::vector<size_t>{0, 1}));  // every build ended before the environment's verdict
  EXPECT_NE(err.find("[v0] nvcc failed to compile v0.cu"), std::string::npos) << err;
  EXPECT_NE(err.find("error: expected a \";\""), std::string::npos) << err;
  EXPECT_NE(err.find("hint: fix the errors nvcc reports above"), std::string::npos) << err;
  EXPECT_TRUE(ports.log.empty());  // nothing was loaded
}

// Without a GPU and without --arch every build fails alike, for want of the GPU: the run's failure is
// the environment's (exit 1, its blockers), with one note for all versions on what --arch would do.
TEST(RunFlowFakes, WithoutAGpuAMissingArchIsTheEnvironmentsFailureWithOneNote) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  FakePorts ports;
  ports.gpu_usable = false;
  ports.env_passes = false;
  for (size_t i : {0, 1})
    ports.build_errors.emplace(i, usage_error("no GPU to take the architecture from: no CUDA driver/GPU",
                                              "pass --arch, e.g. --arch sm_90 for an H100/H200"));
  const auto [out, err] = drive_run_said(req, ports);
  EXPECT_FALSE(out.env_ready);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(err.find("error: [v0"), std::string::npos) << err;  // not a build error of the user's
  const size_t note = err.find("[v0, v1] not built: no GPU to take the architecture from; pass --arch");
  ASSERT_NE(note, std::string::npos) << err;
  EXPECT_EQ(err.find("not built:", err.find("not built:", note) + 1), std::string::npos) << err;  // said once
}

// On a GPU whose environment is not ready (no ncu, say) a version's compile error is said too,
// before the run stops; exit 1.
TEST(RunFlowFakes, ABuildErrorIsSaidEvenWhenTheEnvironmentIsNotReady) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  FakePorts ports;
  ports.env_passes = false;
  ports.env_ended = false;
  ports.build_errors.emplace(0, check_failed("nvcc failed to compile v0.cu (exit 2)", "fix the errors"));
  const auto [out, err] = drive_run_said(req, ports);
  EXPECT_FALSE(out.env_ready);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(err.find("[v0] nvcc failed to compile v0.cu"), std::string::npos) << err;
  EXPECT_TRUE(ports.log.empty());  // the run stopped there: nothing loaded
}

// On a ready machine nothing changes beyond the order: the version that does not build gets its
// row with the error, each build is waited for once, the others run, exit 1.
TEST(RunFlowFakes, OnAReadyMachineAFailedBuildIsTheVersionsRowAndTheOthersRun) {
  TempDir dir;
  RunRequest req = request(dir, 2);
  FakePorts ports;
  ports.build_errors.emplace(0, check_failed("nvcc failed to compile v0.cu (exit 2)", "fix the errors"));
  const RunOutcome out = drive_run_said(req, ports).first;
  EXPECT_TRUE(out.env_ready);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(ports.builds_waited, (std::vector<size_t>{0, 1}));
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.rows[0].status, VersionStatus::LoadError);
  EXPECT_NE(out.rows[0].status_reason.find("nvcc failed"), std::string::npos);
  EXPECT_EQ(out.rows[1].status, VersionStatus::Pass);
  EXPECT_EQ(ports.log, (std::vector<std::string>{"load v1.cu", "check v1.cu", "profile v1.cu"}));
}
