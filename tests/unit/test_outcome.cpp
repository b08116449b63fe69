// One request in, one outcome out (issue 47): the outcome document a public command writes to
// $KPROF_OUTCOME_FILE (core/outcome.hpp), round-tripped through the built kprof on the CPU: a
// verdict (analyze of a committed CSV), a usage error, concurrent runs sharing one folder (each
// outcome holds its own report), a hidden command (which writes its own where its parent names
// it, and never inherits its parent's file), and the document read back with a child's results.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "core/fs.hpp"
#include "core/outcome.hpp"
#include "core/subprocess.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;

namespace {

namespace fs = std::filesystem;

std::string fresh(const std::string& name) {
  std::string d = (fs::temp_directory_path() / ("kprof_outcome_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

const std::string kCopyCsv = std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv";

}  // namespace

TEST(Outcome, DocumentHoldsTheReportAsWrittenAndTheLastError) {
  reset_outcome();
  note_report("out/profile.json", R"({"schema_version": 2, "x": 1})");
  note_error("the kernel faulted", "run kprof check");
  nlohmann::json j = nlohmann::json::parse(outcome_json("profile", 1));
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["command"], "profile");
  EXPECT_EQ(j["kprof_version"], KPROF_VERSION);
  EXPECT_EQ(j["report"]["path"], "out/profile.json");
  EXPECT_EQ(j["report"]["content"]["x"], 1);
  EXPECT_EQ(j["error"]["hint"], "run kprof check");
  reset_outcome();
  EXPECT_TRUE(nlohmann::json::parse(outcome_json("env", 0))["report"].is_null());
}

TEST(Outcome, AnalyzeWritesItsOutcomeWithItsOwnReport) {
  std::string d = fresh("analyze");
  std::string doc = join_path(d, "outcome.json");
  auto r = testutil::run_kprof({"analyze", kCopyCsv, "--json", "--no-roofline", "-o", join_path(d, "out")},
                               {{"KPROF_OUTCOME_FILE", doc}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = read_json(doc);
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["command"], "analyze");
  EXPECT_EQ(j["report"]["path"], join_path(join_path(d, "out"), "analysis.json"));
  EXPECT_EQ(j["report"]["content"]["source"], kCopyCsv);
  EXPECT_EQ(j["report"]["content"], read_json(join_path(d, "out/analysis.json")));
  EXPECT_TRUE(j["error"].is_null());
}

TEST(Outcome, AUsageErrorIsExitTwoWithItsMessageAndHint) {
  std::string d = fresh("usage");
  std::string doc = join_path(d, "outcome.json");
  auto r = testutil::run_kprof({"analyze", kCopyCsv, "--top", "0"}, {{"KPROF_OUTCOME_FILE", doc}});
  EXPECT_EQ(r.exit_code, 2);
  nlohmann::json j = read_json(doc);
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_TRUE(j["report"].is_null());
  EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
}

TEST(Outcome, TenRunsSharingOneFolderEachGetTheirOwnReport) {
  std::string d = fresh("shared");
  std::vector<std::string> inputs;
  for (int i = 0; i < 10; ++i) {
    inputs.push_back(join_path(d, "in" + std::to_string(i) + ".raw.csv"));
    fs::copy_file(kCopyCsv, inputs.back());
  }
  std::vector<std::thread> threads;
  std::vector<int> codes(10, -1);
  for (int i = 0; i < 10; ++i)
    threads.emplace_back([&, i] {
      codes[i] =
          testutil::run_kprof({"analyze", inputs[i], "--json", "--no-roofline", "-o", join_path(d, "shared_out")},
                              {{"KPROF_OUTCOME_FILE", join_path(d, "outcome" + std::to_string(i) + ".json")}}, "", 300)
              .exit_code;
    });
  for (auto& t : threads) t.join();
  int wrong = 0;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(codes[i], 0) << i;
    nlohmann::json j = read_json(join_path(d, "outcome" + std::to_string(i) + ".json"));
    if (j["report"]["content"]["source"] != inputs[i]) ++wrong;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_NO_THROW(read_json(join_path(d, "shared_out/analysis.json")));  // whole on disk
}

TEST(Outcome, AHiddenCommandWritesItsOwnWhereItsParentNamesIt) {
  std::string d = fresh("hidden");
  std::string doc = join_path(d, "outcome.json");
  auto r = testutil::run_kprof({"__options"}, {{"KPROF_OUTCOME_FILE", doc}});
  EXPECT_EQ(r.exit_code, 0);
  ChildOutcome o = read_outcome(doc);
  ASSERT_TRUE(o.found) << o.problem;
  EXPECT_EQ(o.command, "__options");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_TRUE(o.results.is_null());
}

TEST(Outcome, AChildNeverWritesToItsParentsOwnOutcomeFile) {
  // This process's $KPROF_OUTCOME_FILE (the one its own parent named) is not passed on: a child
  // gets one only where its parent names it, so no child overwrites its parent's outcome.
  std::string d = fresh("inherit");
  testutil::ScopedEnv mine("KPROF_OUTCOME_FILE", join_path(d, "mine.json"));
  ProcessOptions po;
  ProcessResult r = run_process({"/bin/sh", "-c", "echo \"[$KPROF_OUTCOME_FILE]\""}, po);
  EXPECT_EQ(r.out, "[]\n");
  po.env["KPROF_OUTCOME_FILE"] = join_path(d, "child.json");
  r = run_process({"/bin/sh", "-c", "echo \"[$KPROF_OUTCOME_FILE]\""}, po);
  EXPECT_EQ(r.out, "[" + join_path(d, "child.json") + "]\n");
}

TEST(Outcome, ReadBackWithResultsACheckpointAndWhatIsNotOne) {
  std::string d = fresh("read");
  std::string doc = join_path(d, "outcome.json");
  reset_outcome();
  note_error("the kernel faulted", "run kprof check");
  note_results({{"units", {{{"id", "v0/N=8"}, {"status", "ok"}}}}});
  {
    testutil::ScopedEnv named("KPROF_OUTCOME_FILE", doc);
    ASSERT_TRUE(checkpoint_outcome("__worker"));  // a long child's results so far: exit -1, not ended
  }
  ChildOutcome o = read_outcome(doc);
  ASSERT_TRUE(o.found) << o.problem;
  EXPECT_EQ(o.command, "__worker");
  EXPECT_EQ(o.exit_code, -1);
  EXPECT_EQ(o.error, "the kernel faulted");
  EXPECT_EQ(o.hint, "run kprof check");
  EXPECT_EQ(o.results["units"][0]["id"], "v0/N=8");
  ASSERT_TRUE(write_outcome(doc, "__worker", 1));  // the final one replaces it
  EXPECT_EQ(read_outcome(doc).exit_code, 1);
  reset_outcome();
  EXPECT_FALSE(checkpoint_outcome("__worker"));  // no file named: nothing written
  EXPECT_FALSE(read_outcome(join_path(d, "none.json")).found);
  EXPECT_TRUE(testutil::contains(read_outcome(join_path(d, "none.json")).problem, "no outcome document"));
  testutil::write(join_path(d, "bad.json"), "{\"exit_code\": \"zero\"}");
  EXPECT_FALSE(read_outcome(join_path(d, "bad.json")).found);
}
