// The check as steps with one fault exit (issue 48: run_check), driven on the CPU: run_check's frame
// over its trials (stages/verify/check.hpp run_check_trials) with fake trials standing where the
// GPU trial would be (first call, reference, sentinel call, compare, repeat): every trial passing, a
// version failing its check, a fault that ends the check in a later trial (the one fault exit), and
// an error from ref.py that comes out of the check.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "stages/verify/check.hpp"

using namespace kprof;

namespace {

/// A fake trial: its comparison passes or not; it faults at trial `fault_at` (-1: never). Records
/// the trials it ran and their seeds.
struct FakeTrials {
  std::vector<bool> pass;  ///< per trial
  int fault_at = -1;
  std::vector<uint64_t> seeds;

  CheckTrial trial() {
    return [this](int t, TrialResult& tr, CheckResult& res) -> std::optional<KernelFault> {
      seeds.push_back(tr.seed);
      res.phases_s.push_back({"first call", 0.001});
      if (t == fault_at)
        return KernelFault{FaultKind::KernelError, "cudaErrorIllegalAddress", "an illegal memory access", "fix it",
                           false};
      OutputComparison c;
      c.name = "C";
      c.count = 8;
      c.pass = pass.at(static_cast<size_t>(t));
      c.mismatches = c.pass ? 0 : 3;
      tr.outputs.push_back(c);
      tr.pass = c.pass;
      return std::nullopt;
    };
  }
};

CheckOptions options(int trials) {
  CheckOptions o;
  o.seed = 42;
  o.trials = trials;
  return o;
}

}  // namespace

TEST(CheckSteps, EveryTrialPassingIsAPassWithOneSeedPerTrial) {
  FakeTrials f{{true, true}};
  CheckResult r = run_check_trials(options(2), f.trial());
  EXPECT_TRUE(r.pass);
  EXPECT_FALSE(r.fault);
  EXPECT_EQ(r.fault_trial, -1);
  ASSERT_EQ(r.trials.size(), 2u);
  EXPECT_EQ(f.seeds, (std::vector<uint64_t>{42, 43}));  // trial t uses seed + t
  EXPECT_EQ(r.trials[1].seed, 43u);
}

TEST(CheckSteps, AVersionFailingItsCheckFailsWithEveryTrialKept) {
  FakeTrials f{{true, false}};
  CheckResult r = run_check_trials(options(2), f.trial());
  EXPECT_FALSE(r.pass);
  EXPECT_FALSE(r.fault);
  ASSERT_EQ(r.trials.size(), 2u);  // a failed comparison is not a fault: the trials go on
  EXPECT_TRUE(r.trials[0].pass);
  EXPECT_FALSE(r.trials[1].pass);
  EXPECT_EQ(r.trials[1].outputs[0].mismatches, 3u);
}

TEST(CheckSteps, AFaultIsTheOneExitAndTheTrialThatFaultedIsTheLast) {
  FakeTrials f{{true, true, true}, /*fault_at=*/1};
  CheckResult r = run_check_trials(options(3), f.trial());
  EXPECT_FALSE(r.pass);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->cuda_error, "cudaErrorIllegalAddress");
  EXPECT_EQ(r.fault_trial, 1);
  EXPECT_EQ(r.trials.size(), 2u);  // trial 2 never ran
  EXPECT_EQ(f.seeds.size(), 2u);
  EXPECT_TRUE(r.trials[0].pass);
  EXPECT_EQ(r.phases_s.size(), 2u);  // what each trial reached stays in the result
}

TEST(CheckSteps, AFaultInTheFirstTrialFailsEvenThoughNoComparisonFailed) {
  FakeTrials f{{true}, /*fault_at=*/0};
  CheckResult r = run_check_trials(options(1), f.trial());
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.fault_trial, 0);
  ASSERT_EQ(r.trials.size(), 1u);
  EXPECT_TRUE(r.trials[0].outputs.empty());
}

TEST(CheckSteps, AtLeastOneTrialRunsWhenNoneIsAsked) {
  FakeTrials f{{true}};
  CheckResult r = run_check_trials(options(0), f.trial());
  EXPECT_EQ(f.seeds.size(), 1u);
  EXPECT_TRUE(r.pass);
}

TEST(CheckSteps, ABrokenRefPyComesOutOfTheCheck) {
  CheckTrial broken = [](int, TrialResult&, CheckResult&) -> std::optional<KernelFault> {
    throw usage_error("ref.py: reference() raised", "fix ref.py");
  };
  try {
    run_check_trials(options(2), broken);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
  }
}
