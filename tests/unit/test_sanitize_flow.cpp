// kprof check --sanitize without a GPU: the child's command line, the tool runs through a fake
// compute-sanitizer (a script printing a real run's output), the report's sanitizer section and
// block, and the usage errors (exit 2) before any GPU work.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "api/command_requests.hpp"
#include "core/error.hpp"
#include "core/outcome.hpp"
#include "flows/sanitize.hpp"
#include "report/correctness_report.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

const std::string kVadd = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu";
const std::string kVref = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/ref.py";

SanitizeRequest request(const std::string& out_dir) {
  SanitizeRequest req;
  req.tools = {SanitizerTool::Memcheck, SanitizerTool::Racecheck};
  req.sanitizer = "/opt/cs/compute-sanitizer";
  req.kprof = {"/opt/kprof/kprof"};
  req.spec.kernel = "race_shared.cu";
  req.spec.timeout_s = 30;
  req.spec.build = true;
  req.spec.nvcc_flags = {"-DTILE=64"};
  req.spec.dims.set("n", "1048576");
  req.ref = "race_ref.py";
  req.atol = 0.5;
  req.output_dir = out_dir;
  return req;
}

bool has(const std::vector<std::string>& v, const std::string& w) {
  return std::find(v.begin(), v.end(), w) != v.end();
}

/// The word after `w` in `v` ("" when absent).
std::string after(const std::vector<std::string>& v, const std::string& w) {
  auto it = std::find(v.begin(), v.end(), w);
  return it == v.end() || it + 1 == v.end() ? "" : *(it + 1);
}

const char* kRaceRun = R"(========= COMPUTE-SANITIZER
[kprof] checking race_shared.cu (cuda-cpp) against race_ref.py
========= Error: Race reported between Write access at reverse_blocks_racy(const float *, float *, int)+0x80 in race_shared.cu:18
=========     and Read access at reverse_blocks_racy(const float *, float *, int)+0xa0 in race_shared.cu:20 [4096 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

}  // namespace

TEST(SanitizeFlow, ChildRunsTheSameKernelOnceWithoutSanitize) {
  SanitizeRequest req = request("out");
  req.spec.so_path = "lib/race_shared.so";
  api::CheckRequest c = sanitizer_child_request(req, "out/sanitizer/memcheck");
  EXPECT_EQ(c.kernel.kernels, std::vector<std::string>{"race_shared.cu"});
  EXPECT_EQ(c.kernel.so_paths, std::vector<std::string>{"lib/race_shared.so"});
  EXPECT_EQ(c.kernel.trials, 1);
  EXPECT_EQ(c.kernel.output_dir, "out/sanitizer/memcheck");
  EXPECT_EQ(c.kernel.ref, "race_ref.py");
  EXPECT_EQ(c.kernel.atol, 0.5);
  EXPECT_LT(c.kernel.rtol, 0);                // not given: the rule decides
  EXPECT_EQ(c.kernel.spec.timeout_s, 300.0);  // 10 x the check's --timeout
  EXPECT_EQ(c.kernel.spec.dims.to_string(), "n=1048576");
  EXPECT_TRUE(c.sanitize.empty());
  EXPECT_FALSE(c.kernel.spec.build);
  EXPECT_EQ(c.kernel.spec.nvcc_flags, std::vector<std::string>{"-DTILE=64"});
  EXPECT_NO_THROW(api::validate(c));
  // One request in: what the child reads back is what the parent sent.
  nlohmann::json sent = api::to_json(c);
  EXPECT_EQ(api::to_json(api::check_request_from_json(nlohmann::json::parse(sent.dump()))), sent);
  EXPECT_EQ(sanitizer_run_timeout_s(30), 600.0);
  EXPECT_EQ(sanitizer_run_timeout_s(60), 1200.0);
}

TEST(SanitizeFlow, CommandPerTool) {
  SanitizeRequest req = request("out");
  auto mem = sanitizer_command(req, SanitizerTool::Memcheck, "out/sanitizer/memcheck.request.json");
  EXPECT_EQ(mem[0], "/opt/cs/compute-sanitizer");
  EXPECT_EQ(after(mem, "--tool"), "memcheck");
  EXPECT_EQ(after(mem, "--print-limit"), "20");
  EXPECT_EQ(after(mem, "--target-processes"), "all");
  EXPECT_EQ(after(mem, "/opt/kprof/kprof"), "__check");
  EXPECT_EQ(after(mem, "--request"), "out/sanitizer/memcheck.request.json");
  EXPECT_FALSE(has(mem, "--racecheck-report"));
  auto race = sanitizer_command(req, SanitizerTool::Racecheck, "r.json");
  EXPECT_EQ(after(race, "--tool"), "racecheck");
  EXPECT_EQ(after(race, "--racecheck-report"), "all");
  EXPECT_EQ(race.back(), "r.json");
}

TEST(SanitizeFlow, RunsEachToolThroughAFakeSanitizerAndJudgesIt) {
  TempDir dir;
  write(dir / "racecheck.txt", kRaceRun);
  write(dir / "memcheck.txt", "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  // Prints the canned output of the tool named after --tool ($2) and records its arguments.
  write(dir / "compute-sanitizer",
        "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/args.txt\"\ncat \"$(dirname \"$0\")/$2.txt\"\nexit 0\n", true);
  SanitizeRequest req = request(dir / "out");
  req.sanitizer = dir / "compute-sanitizer";
  CheckResult r;
  r.pass = true;
  add_sanitizer_findings(r, req);
  ASSERT_EQ(r.sanitizer.size(), 2u);
  EXPECT_FALSE(r.pass);
  const auto& mem = r.sanitizer[0];
  EXPECT_TRUE(mem.pass) << mem.error;
  EXPECT_TRUE(mem.output.summary_found);
  const auto& race = r.sanitizer[1];
  EXPECT_FALSE(race.pass);
  EXPECT_EQ(race.user_errors, 4096);
  EXPECT_EQ(race.output.errors, 1);
  EXPECT_EQ(race.log_path, dir / "out/sanitizer/racecheck.log");
  EXPECT_TRUE(contains(read_file_or_empty(race.log_path), "RACECHECK SUMMARY: 1 hazard displayed"));
  EXPECT_TRUE(contains(read_file_or_empty(race.log_path), "$ " + race.command));
  std::string args = read_file_or_empty(dir / "args.txt");
  EXPECT_TRUE(contains(args,
                       "--tool memcheck --print-limit 20 --target-processes all /opt/kprof/kprof __check "
                       "--request " +
                           dir / "out/sanitizer/memcheck.request.json"))
      << args;
  EXPECT_TRUE(contains(args, "--tool racecheck --print-limit 20 --racecheck-report all")) << args;
}

// One request in, one outcome out: a fake compute-sanitizer runs its target, the built kprof's
// `__check --request FILE`, as the real one does (the GPU is what this machine lacks). The child
// reads the parent's request and writes its outcome document where the parent named it; a child
// that could not run the kernel (exit 2) leaves the tool without a verdict, in the child's words.
TEST(SanitizeFlow, TheChildReadsItsRequestAndAnswersWithItsOutcome) {
  TempDir dir;
  // Runs the words after "--target-processes all" (the child), then prints a clean summary.
  write(dir / "compute-sanitizer",
        "#!/bin/sh\nwhile [ \"$1\" != all ]; do shift; done\nshift\n\"$@\"\n"
        "echo \"========= ERROR SUMMARY: 0 errors\"\nexit 0\n",
        true);
  SanitizeRequest req = request(dir / "out");
  req.tools = {SanitizerTool::Memcheck};
  req.sanitizer = dir / "compute-sanitizer";
  req.kprof = {KPROF_BINARY};
  req.spec.kernel = dir / "missing_kernel.cu";  // the child stops at its input check: exit 2
  req.spec.nvcc_flags.clear();
  auto results = run_sanitizers(req);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].pass);
  EXPECT_TRUE(contains(results[0].error, "the kernel did not run under it")) << results[0].error;
  EXPECT_TRUE(contains(results[0].error, "missing_kernel.cu")) << results[0].error;
  ChildOutcome child = read_outcome(dir / "out/sanitizer/memcheck.outcome.json");
  ASSERT_TRUE(child.found) << child.problem;
  EXPECT_EQ(child.command, "__check");
  EXPECT_EQ(child.exit_code, 2);
  // The request the child read is the parent's, field for field.
  nlohmann::json sent = nlohmann::json::parse(read_file_or_empty(dir / "out/sanitizer/memcheck.request.json"));
  EXPECT_EQ(sent, api::to_json(sanitizer_child_request(req, dir / "out/sanitizer/memcheck")));

  // A child that checked the kernel (exit 0 or 1) leaves the tool's verdict as judged.
  SanitizerToolResult judged =
      judge_sanitizer_run(SanitizerTool::Memcheck, "========= ERROR SUMMARY: 0 errors\n", 0, false, "", false);
  ChildOutcome failed_check;
  failed_check.found = true;
  failed_check.exit_code = 1;
  apply_child_outcome(judged, failed_check);
  EXPECT_TRUE(judged.pass) << judged.error;
  apply_child_outcome(judged, ChildOutcome{});  // none written: the tool's output says why
  EXPECT_TRUE(judged.pass) << judged.error;
}

TEST(SanitizeFlow, ASanitizerThatCannotStartGivesNoVerdict) {
  TempDir dir;
  SanitizeRequest req = request(dir / "out");
  req.tools = {SanitizerTool::Initcheck};
  req.sanitizer = dir / "missing-sanitizer";
  auto results = run_sanitizers(req);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].pass);
  EXPECT_TRUE(contains(results[0].error, "cannot start")) << results[0].error;
}

TEST(SanitizeFlow, AHungKernelIsNotRunAgain) {
  CheckResult r;
  r.pass = false;
  r.fault = KernelFault{FaultKind::Timeout, "", "solve() did not finish within 5 s", "fix it", false};
  SanitizeRequest req = request("/nonexistent/out");
  add_sanitizer_findings(r, req);
  EXPECT_TRUE(r.sanitizer.empty());
  EXPECT_TRUE(contains(r.sanitizer_skipped, "did not finish")) << r.sanitizer_skipped;
  auto j = correctness_json(r, {});
  EXPECT_FALSE(j["sanitizer"]["skipped"].is_null());
  EXPECT_FALSE(j["sanitizer"]["pass"].get<bool>());
}

TEST(SanitizeFlow, ReportSectionJsonBlockAndConsole) {
  CheckResult r;
  EXPECT_TRUE(correctness_json(r, {})["sanitizer"].is_null());
  EXPECT_FALSE(contains(correctness_markdown(r, {}), "Sanitizer"));
  SanitizerToolResult race = judge_sanitizer_run(SanitizerTool::Racecheck, kRaceRun, 0, false, "", false);
  race.command = "compute-sanitizer --tool racecheck kprof check race_shared.cu";
  race.log_path = "out/sanitizer/racecheck.log";
  r.sanitizer.push_back(race);
  std::string md = correctness_markdown(r, {});
  EXPECT_TRUE(contains(md, "## Sanitizer (compute-sanitizer)")) << md;
  EXPECT_TRUE(contains(md, "### racecheck: FAIL")) << md;
  EXPECT_TRUE(contains(md, "- command: `compute-sanitizer --tool racecheck kprof check race_shared.cu`")) << md;
  EXPECT_TRUE(contains(md, "RACECHECK SUMMARY: 1 hazards displayed (1 errors, 0 warnings)")) << md;
  EXPECT_TRUE(contains(md,
                       "| Race reported between Write access and Read access | error | "
                       "reverse_blocks_racy(const float *, float *, int) | race_shared.cu:18 | 4096 |"))
      << md;
  auto j = correctness_json(r, {})["sanitizer"];
  EXPECT_FALSE(j["pass"].get<bool>());
  EXPECT_EQ(j["tools"][0]["tool"], "racecheck");
  EXPECT_EQ(j["tools"][0]["errors"], 1);
  EXPECT_EQ(j["tools"][0]["user_errors"], 4096);
  EXPECT_EQ(j["tools"][0]["reports"][0]["location"], "race_shared.cu:18");
  EXPECT_EQ(j["tools"][0]["reports"][0]["library"], false);
  std::string console = correctness_console(r);
  EXPECT_TRUE(contains(console,
                       "FAIL racecheck: 4096 hazards in the kernel: Race reported between Write access and "
                       "Read access in reverse_blocks_racy(const float *, float *, int) at race_shared.cu:18"))
      << console;
  EXPECT_TRUE(contains(console, "out/sanitizer/racecheck.log")) << console;
}

TEST(SanitizeFlow, MissingComputeSanitizerIsAUsageError) {
  ScopedEnv none("KPROF_COMPUTE_SANITIZER", std::string("/nonexistent/compute-sanitizer"));
  try {
    require_compute_sanitizer();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_TRUE(contains(e.hint(), "install the CUDA toolkit's compute-sanitizer")) << e.hint();
  }
}

TEST(SanitizeCli, BadToolListIsExitTwoBeforeAnyGpuWork) {
  auto r = run_kprof({"check", kVadd, "--ref", kVref, "--N=8", "--sanitize", "memcheck,leakcheck"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(contains(r.err, "unknown compute-sanitizer tool 'leakcheck'")) << r.err;
  EXPECT_TRUE(contains(r.err, "memcheck, racecheck, initcheck, synccheck")) << r.err;
}

TEST(SanitizeCli, MissingComputeSanitizerIsExitTwoBeforeAnyGpuWork) {
  auto r = run_kprof({"check", kVadd, "--ref", kVref, "--N=8", "--build", "-o", "/tmp/kprof_sanitize_cli_test",
                      "--sanitize", "memcheck"},
                     {{"KPROF_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer"}});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(contains(r.err, "--sanitize needs NVIDIA compute-sanitizer")) << r.err;
  EXPECT_TRUE(contains(r.err, "install the CUDA toolkit's compute-sanitizer")) << r.err;
}

TEST(SanitizeCli, HelpNamesTheOption) {
  auto r = run_kprof({"check", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "--sanitize TOOLS")) << r.out;
}
