// The command line as a function (cli/entry.hpp): cli_check parses without running (the Python
// API's usage errors before any child starts), and every printed error also reaches
// $KPROF_ERROR_FILE as one JSON line with the same message and hint.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli/entry.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;

namespace {
const std::string kVadd = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu";
const std::string kRef = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/ref.py";
}  // namespace

TEST(CliEntry, CheckFindsUsageErrorsWithoutRunning) {
  CliOutcome r = cli_check({"kprof", "frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.message.find("unknown command 'frobnicate'"), std::string::npos) << r.message;
  EXPECT_FALSE(r.hint.empty());

  r = cli_check({"kprof", "profile", kVadd, "--iters", "2.5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.message.find("--iters: must be an integer, got '2.5'"), std::string::npos) << r.message;

  r = cli_check({"kprof", "profile", kVadd, "--N", "1024"});  // a dimension written with a space
  EXPECT_EQ(r.code, 2) << r.message;

  r = cli_check({"kprof", "profile", "no_such_kernel.cu", "--N=8"});  // the files the parser checks
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.message.find("no_such_kernel.cu"), std::string::npos) << r.message;

  r = cli_check({"kprof"});
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(r.message.empty());
}

TEST(CliEntry, CheckAcceptsWhatTheCommandWouldRun) {
  EXPECT_EQ(cli_check({"kprof", "--version"}).code, 0);
  EXPECT_EQ(cli_check({"kprof", "run", "--help"}).code, 0);
  CliOutcome r = cli_check({"kprof", "profile", kVadd, "--N=1024", "--iters", "50", "--no-ncu"});
  EXPECT_EQ(r.code, 0) << r.message;
  EXPECT_EQ(r.command, "profile");
  EXPECT_EQ(r.output, "profile_out");  // the option's own default
  EXPECT_EQ(cli_check({"kprof", "compare", kRef, kRef}).output, "compare_out");
  EXPECT_EQ(cli_check({"kprof", "analyze", kRef, "-o", "mine"}).output, "mine");
  r = cli_check({"kprof", "check", kVadd, "--ref", kRef, "--N=8", "--", "-DX=1"});
  EXPECT_EQ(r.code, 0) << r.message;
}

TEST(CliEntry, HiddenCommandsEndThroughExit) {
  EXPECT_TRUE(ends_through_exit({"kprof", "__runner", "k.cu"}));
  EXPECT_TRUE(ends_through_exit({"python3", "__worker"}));
  EXPECT_FALSE(ends_through_exit({"kprof", "run", "k.cu"}));
  EXPECT_FALSE(ends_through_exit({"kprof"}));
}

TEST(CliEntry, ErrorsAlsoGoToTheErrorFileAsJsonLines) {
  std::string file = (std::filesystem::temp_directory_path() / ("kprof_errors_" + std::to_string(::getpid()))).string();
  std::filesystem::remove(file);
  auto r = testutil::run_kprof({"frobnicate"}, {{"KPROF_ERROR_FILE", file}});
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_TRUE(path_exists(file)) << r.err;
  std::vector<std::string> lines = split(trim(read_file(file)), '\n');
  ASSERT_EQ(lines.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(lines[0]);
  EXPECT_NE(j.at("message").get<std::string>().find("frobnicate"), std::string::npos);
  EXPECT_NE(r.err.find(j.at("message").get<std::string>()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(j.at("hint").get<std::string>()), std::string::npos) << r.err;
  std::filesystem::remove(file);
}
