// The option table (api/options.hpp) and the typed requests (api/requests.hpp): the command line
// is registered from the table (every public command's options are its rows: names, help and the
// default --help shows), the flags with several meanings keep their name and get distinct fields,
// the defaults are the stages' constants, and a request round-trips through JSON.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "api/options.hpp"
#include "api/requests.hpp"
#include "cli/commands.hpp"
#include "cli/kernel_options.hpp"
#include "cli/profile_settings.hpp"
#include "core/error.hpp"
#include "kernel/build.hpp"
#include "stages/env/env_check.hpp"
#include "stages/ncu/session.hpp"

using namespace kprof;

namespace {

/// The app with every command registered, as cli_main builds it.
struct Registered {
  CLI::App app{"kprof"};
  CommandAction action;
  Registered() { register_public_commands(app, action); }
};

}  // namespace

TEST(OptionTable, EveryCommandLineOptionIsARowAndEveryRowAnOption) {
  Registered r;
  for (const auto& cmd : api::public_commands()) {
    const CLI::App* sub = r.app.get_subcommand(cmd);
    std::set<std::string> cli, table;
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_lnames().empty() || o->get_lnames()[0] == "help") continue;  // positionals, --help
      cli.insert("--" + o->get_lnames()[0]);
      const api::OptionRow& row = api::option_row(cmd, "--" + o->get_lnames()[0]);
      if (row.flag != "--time-budget-ms") EXPECT_EQ(o->get_description(), row.help) << cmd << " " << row.flag;
      EXPECT_EQ(o->get_default_str(), row.default_value) << cmd << " " << row.flag;
      EXPECT_EQ(o->get_group().empty(), row.hidden) << cmd << " " << row.flag;
      if (!row.short_name.empty()) EXPECT_EQ("-" + o->get_snames().at(0), row.short_name);
    }
    for (const api::OptionRow* row : api::command_rows(cmd)) table.insert(row->flag);
    EXPECT_EQ(cli, table) << "kprof " << cmd;
  }
}

TEST(OptionTable, FlagsWithSeveralMeaningsKeepTheirNameAndGetDistinctFields) {
  EXPECT_EQ(api::option_row("check", "--timeout").field, "call_timeout_s");
  EXPECT_EQ(api::option_row("env", "--timeout").field, "probe_timeout_s");
  EXPECT_EQ(api::option_row("analyze", "--timeout").field, "export_timeout_s");
  EXPECT_EQ(api::option_row("build", "--timeout").field, "nvcc_timeout_s");
  EXPECT_EQ(api::option_row("env", "--output").field, "output_file");
  EXPECT_EQ(api::option_row("build", "--output").field, "output_so");
  EXPECT_EQ(api::option_row("profile", "--output-dir").field, "output_dir");
  for (const char* cmd : {"env", "build", "compare"}) EXPECT_EQ(api::option_row(cmd, "--output").short_name, "-o");
  // The three 60 s timeouts are equal by chance, each its own stage's constant.
  EXPECT_EQ(api::option_row("check", "--timeout").default_value, "60");
  EXPECT_EQ(api::option_row("env", "--timeout").default_value, "60");
  EXPECT_EQ(api::option_row("run", "--env-timeout").default_value, "60");
  EXPECT_EQ(api::option_row("build", "--timeout").default_value, fmt::format("{:g}", kDefaultNvccTimeoutS));
}

TEST(OptionTable, DefaultsAreTheStagesConstantsOrRules) {
  EXPECT_EQ(api::option_row("profile", "--warmup-ms").default_value, fmt::format("{:g}", kDefaultWarmupMs));
  EXPECT_EQ(api::option_row("profile", "--noise-target").default_value, "0.5");
  EXPECT_EQ(api::option_row("profile", "--noise-target").unit, "%");
  EXPECT_EQ(api::option_row("run", "--ncu-session").default_value, kDefaultOneNcuSession ? "one" : "per-version");
  // Rules are stated as rules, not numbers.
  EXPECT_TRUE(api::option_row("profile", "--time-budget-ms").default_value.empty());
  EXPECT_NE(api::option_row("profile", "--time-budget-ms").default_rule.find("with an explicit --iters"),
            std::string::npos);
  EXPECT_NE(api::option_row("check", "--implementation").default_rule.find("for .py"), std::string::npos);
  EXPECT_NE(api::option_row("check", "--atol").default_rule.find("ref.py"), std::string::npos);
  // The parsed defaults are the stages' own.
  api::ProfileRequest p;
  ProfileSettings s = make_profile_settings(api::KernelRequest{}, p);
  EXPECT_EQ(s.timing.warmup_ms, TimingOptions{}.warmup_ms);
  EXPECT_EQ(s.ncu_timeout_s, NcuRunOptions{}.timeout_s);
  EXPECT_EQ(s.metric_set, NcuRunOptions{}.metric_set);
  EXPECT_EQ(s.hot_lines_top, HotLinesOptions{}.top);
  EXPECT_EQ(api::KernelRequest{}.spec.timeout_s, CheckOptions{}.timeout_s);
  EXPECT_EQ(api::KernelRequest{}.trials, CheckOptions{}.trials);
  EXPECT_EQ(api::KernelRequest{}.spec.seed, CheckOptions{}.seed);
}

TEST(OptionTable, JsonHasTypedDefaultsChoicesAndTheVersion) {
  nlohmann::json j = api::option_table_json();
  EXPECT_EQ(j["kprof_version"], KPROF_VERSION);
  const nlohmann::json* metrics = nullptr;
  for (const auto& row : j["commands"]["run"])
    if (row["keyword"] == "metrics") metrics = &row;
  ASSERT_NE(metrics, nullptr);
  EXPECT_EQ((*metrics)["default"], "kprof");
  EXPECT_EQ((*metrics)["choices"].size(), 3u);
  for (const auto& row : j["commands"]["run"])
    if (row["keyword"] == "rounds") EXPECT_TRUE(row["default"].is_number_integer());
  EXPECT_NE(api::option_table_markdown("profile").find("| `--warmup-ms` | number | ms | `100` |"), std::string::npos);
}

TEST(OptionTable, ClosestKeywordNamesTheOptionMeant) {
  EXPECT_EQ(api::closest_keyword("profile", "warmup_msx"), "warmup_ms");
  EXPECT_EQ(api::closest_keyword("run", "decide_tme"), "decide_time");
  EXPECT_EQ(api::closest_keyword("run", "zzzzzzzzzzzzzz"), "");
}

TEST(Requests, RoundTripThroughJsonWithTheVersion) {
  api::KernelRequest k;
  k.kernels = {"a.cu", "b.cu"};
  k.spec.seed = 7;
  k.spec.timeout_s = 12.5;
  k.spec.nvcc_flags = {"-O3"};
  k.spec.dims.set("N", "1024");
  k.atol = 1e-3;
  nlohmann::json j = api::to_json(k);
  EXPECT_EQ(j["kprof_version"], KPROF_VERSION);
  EXPECT_EQ(j["call_timeout_s"], 12.5);
  api::KernelRequest back = api::kernel_request_from_json(j);
  EXPECT_EQ(api::to_json(back), j);
  api::ProfileRequest p;
  p.metric_set = "full";
  p.iters = 50;
  p.iters_given = true;
  EXPECT_EQ(api::to_json(api::profile_request_from_json(api::to_json(p))), api::to_json(p));
  EXPECT_THROW(api::profile_request_from_json({{"iters", "many"}}), Error);
}

TEST(Requests, ValidateStatesTheCrossOptionRules) {
  api::KernelRequest k;
  k.kernels = {"a.cu", "b.cu"};
  k.so_paths = {"a.so"};
  EXPECT_THROW(api::validate(k, /*several=*/true), Error);  // one --so per version, or none
  k.so_paths = {"a.so", "b.so"};
  EXPECT_NO_THROW(api::validate(k, true));
  k.trials = 0;
  EXPECT_THROW(api::validate(k, true), Error);
  api::ProfileRequest p;
  EXPECT_NO_THROW(api::validate(p));
  p.metric_set = "fast";
  EXPECT_THROW(api::validate(p), Error);
  p = {};
  p.noise_target_pct = 80;
  EXPECT_THROW(api::validate(p), Error);
}
