// The timed calls' budget as the command line sets it: a short default budget per phase
// without --iters, the long one with an explicit --iters, --time-budget-ms over both.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "cli/profile_settings.hpp"

using namespace kprof;

namespace {

/// Parses `args` (after the subcommand name) with the profile options and returns the settings.
ProfileSettings settings_for(std::vector<std::string> args) {
  CLI::App app;
  auto* sub = app.add_subcommand("profile");
  ProfileCliOptions p;
  add_profile_options(sub, p);
  args.insert(args.begin(), "profile");
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
  app.parse(args);
  return make_profile_settings(KernelCliOptions{}, p);
}

}  // namespace

TEST(TimingBudgetCli, DefaultIsNoiseDrivenWithATimeLimitAndAtLeastTwentyCalls) {
  ProfileSettings s = settings_for({});
  EXPECT_EQ(s.timing.iters, 0);  // until the noise target
  EXPECT_DOUBLE_EQ(s.timing.noise_target, 0.005);
  EXPECT_DOUBLE_EQ(s.timing.budget_ms, kDefaultBudgetMs);
  EXPECT_EQ(s.timing.min_iters, 20);
  EXPECT_LT(kDefaultBudgetMs, kExplicitItersBudgetMs);
  EXPECT_DOUBLE_EQ(s.timing.clock_floor_frac, 0.75);
  EXPECT_FALSE(s.timing.discard_throttled);
  EXPECT_EQ(s.timing.input_sets, 3);
}

TEST(TimingBudgetCli, NoiseThrottleAndInputOptions) {
  ProfileSettings s =
      settings_for({"--noise-target", "0.2", "--throttle-threshold", "0", "--discard-throttled", "--input-sets", "1"});
  EXPECT_DOUBLE_EQ(s.timing.noise_target, 0.002);
  EXPECT_DOUBLE_EQ(s.timing.clock_floor_frac, 0.0);
  EXPECT_TRUE(s.timing.discard_throttled);
  EXPECT_EQ(s.timing.input_sets, 1);
  EXPECT_THROW(settings_for({"--noise-target", "0"}), CLI::ValidationError);
  EXPECT_THROW(settings_for({"--input-sets", "0"}), CLI::ValidationError);
  EXPECT_THROW(settings_for({"--throttle-threshold", "100"}), CLI::ValidationError);
}

TEST(TimingBudgetCli, AnExplicitItersGetsTheLongBudget) {
  ProfileSettings s = settings_for({"--iters", "100"});
  EXPECT_EQ(s.timing.iters, 100);
  EXPECT_DOUBLE_EQ(s.timing.budget_ms, kExplicitItersBudgetMs);
  ProfileSettings t = settings_for({"--iters=40"});
  EXPECT_EQ(t.timing.iters, 40);
  EXPECT_DOUBLE_EQ(t.timing.budget_ms, kExplicitItersBudgetMs);
}

TEST(TimingBudgetCli, TimeBudgetOptionWinsOverBoth) {
  EXPECT_DOUBLE_EQ(settings_for({"--time-budget-ms", "1500"}).timing.budget_ms, 1500);
  EXPECT_DOUBLE_EQ(settings_for({"--iters", "10", "--time-budget-ms=50"}).timing.budget_ms, 50);
  EXPECT_THROW(settings_for({"--time-budget-ms", "0"}), CLI::ValidationError);
}
