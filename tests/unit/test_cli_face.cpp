// What a fresh user met on a GPU-less machine (helper-14's trial), each answered through the built
// kprof: a compile error before the GPU check, one exit code and hint for a missing --arch, `mcp`
// listed and misspelt commands and options named, plain number errors, compare's report files,
// no "seed" jargon, and `kprof env` leaving no lock file behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "api/options.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/tools.hpp"
#include "device/cuda.hpp"
#include "test_env_util.hpp"

using namespace kprof;
using kprof::testutil::TempDir;

namespace {

const std::string kVadd = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu";
const std::string kRef = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/ref.py";
const std::string kCsv = std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv";

ProcessResult kprof_cli(std::vector<std::string> args) {
  args.insert(args.begin(), KPROF_BINARY);
  ProcessOptions o;
  o.timeout_s = 180;
  o.env["KPROF_COLOR"] = "never";
  return run_process(args, o);
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

/// A .cu whose solve() reads fine but whose body does not compile.
std::string bad_kernel(const TempDir& dir) {
  const std::string path = dir / "bad.cu";
  testutil::write(path,
                  "extern \"C\" void solve(const float* A, const float* B, float* C, int N) { this is not c++; }\n");
  return path;
}

#define SKIP_WITHOUT_NVCC() \
  if (nvcc_path().empty()) GTEST_SKIP() << "needs nvcc"
#define SKIP_WITH_A_GPU() \
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "a GPU-less machine's answer (this one has a GPU)"

}  // namespace

// ---- 1. a compile error needs no GPU: said first, as `kprof build` says it (exit 1) ------------------

TEST(CliFace, CheckAndProfileSayACompileErrorBeforeTheGpu) {
  SKIP_WITHOUT_NVCC();
  TempDir dir;
  const std::string bad = bad_kernel(dir);
  for (const std::string cmd : {"check", "profile"}) {
    std::vector<std::string> args = {cmd, bad, "--N=256", "--build", "--arch", "sm_90", "-o", dir / cmd};
    if (cmd == "check") args.insert(args.end(), {"--ref", kRef});
    auto r = kprof_cli(args);
    EXPECT_EQ(r.exit_code, 1) << r.combined();
    EXPECT_TRUE(has(r.err, "nvcc failed to compile " + bad)) << r.err;
    EXPECT_TRUE(has(r.err, "may only be used inside a nonstatic member function")) << r.err;  // nvcc's own words
    EXPECT_FALSE(has(r.err, "no CUDA driver/GPU")) << r.err;
  }
}

TEST(CliFace, RunSaysACompileErrorBeforeTheEnvironmentWithoutAGpu) {
  SKIP_WITHOUT_NVCC();
  SKIP_WITH_A_GPU();
  TempDir dir;
  const std::string bad = bad_kernel(dir);
  std::filesystem::copy_file(kVadd, dir / "v1.cu");
  auto r =
      kprof_cli({"run", bad, dir / "v1.cu", "--ref", kRef, "--N=256", "--build", "--arch", "sm_90", "-o", dir / "out"});
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  const size_t nvcc = r.err.find("[bad] nvcc failed to compile " + bad);
  ASSERT_NE(nvcc, std::string::npos) << r.err;
  EXPECT_TRUE(has(r.err, "may only be used inside a nonstatic member function")) << r.err;
  EXPECT_LT(nvcc, r.err.find("environment")) << r.err;  // before the environment's blockers
}

// ---- 2. no --arch without a GPU: the build's exit 2 and hint, for check, profile and run alike ------

TEST(CliFace, NoArchWithoutAGpuIsBuildsUsageErrorButTheMissingGpuForTheCommandsThatNeedIt) {
  SKIP_WITHOUT_NVCC();
  SKIP_WITH_A_GPU();
  TempDir dir;
  std::filesystem::copy_file(kVadd, dir / "v0.cu");
  std::filesystem::copy_file(kVadd, dir / "v1.cu");
  // `kprof build` needs only the architecture: not naming one without a GPU is the user's input error.
  auto b = kprof_cli({"build", dir / "v0.cu"});
  EXPECT_EQ(b.exit_code, 2) << b.combined();
  EXPECT_TRUE(has(b.err, "no GPU to take the architecture from")) << b.err;
  EXPECT_TRUE(has(b.err, "hint: pass --arch, e.g. --arch sm_90")) << b.err;
  // check, profile and run need the GPU anyway: its absence is the failure (exit 1), as the
  // environment says; run adds what --arch would do.
  const std::vector<std::vector<std::string>> commands = {
      {"check", dir / "v0.cu", "--ref", kRef, "--N=256", "--build", "-o", dir / "c"},
      {"profile", dir / "v0.cu", "--N=256", "--build", "-o", dir / "p"},
      {"run", dir / "v0.cu", dir / "v1.cu", "--ref", kRef, "--N=256", "--build", "-o", dir / "r"}};
  for (const auto& args : commands) {
    auto r = kprof_cli(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << "\n" << r.combined();
    EXPECT_FALSE(has(r.err, "error: no GPU to take the architecture from")) << r.err;
    EXPECT_TRUE(has(r.err, "no CUDA driver/GPU") || has(r.out + r.err, "NOT ready")) << r.combined();
  }
  auto run = kprof_cli({"run", dir / "v0.cu", dir / "v1.cu", "--ref", kRef, "--N=256", "--build", "-o", dir / "r2"});
  EXPECT_TRUE(has(run.err, "[v0, v1] not built: no GPU to take the architecture from; pass --arch")) << run.err;
}

// ---- 3. `mcp` listed; a misspelt command named ---------------------------------------------------------

TEST(CliFace, HelpAndTheUnknownCommandListMcpAndNameTheNearestCommand) {
  auto help = kprof_cli({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(std::regex_search(help.out, std::regex("\n  mcp +Serve kprof's commands as MCP tools"))) << help.out;
  auto r = kprof_cli({"anlyze", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown command 'anlyze': did you mean analyze?")) << r.err;
  EXPECT_TRUE(has(r.err, "compare and mcp")) << r.err;
  EXPECT_FALSE(has(kprof_cli({"frobnicate"}).err, "did you mean"));
  auto mcp = kprof_cli({"mcp"});  // the executable has no server: it says where it is
  EXPECT_EQ(mcp.exit_code, 2);
  EXPECT_TRUE(has(mcp.err, "pip install 'kprof[mcp]'")) << mcp.err;
}

// ---- 4. number errors: what is wrong, integer ranges as integers, one type in --help ------------------

TEST(CliFace, ANonNumberSaysSoAndRangesArePrintedAsTheyAreWritten) {
  auto top = kprof_cli({"analyze", kCsv, "--top=abc"});
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_TRUE(has(top.err, "--top: must be an integer, got 'abc'")) << top.err;
  auto gpu = kprof_cli({"env", "--gpu=abc"});
  EXPECT_EQ(gpu.exit_code, 2);
  EXPECT_TRUE(has(gpu.err, "--gpu: must be an integer, got 'abc'")) << gpu.err;
  EXPECT_TRUE(has(kprof_cli({"env", "--gpu=5000"}).err, "--gpu: must be between 0 and 4095, got 5000"));
  EXPECT_TRUE(has(kprof_cli({"analyze", kCsv, "--top=2.5"}).err, "--top: must be an integer, got '2.5'"));
  EXPECT_TRUE(has(kprof_cli({"check", kVadd, "--ref", kRef, "--atol=abc"}).err, "--atol: must be a number, got 'abc'"));
  EXPECT_TRUE(has(kprof_cli({"run", kVadd, "--ref", kRef, "--timeout=0"}).err, "--timeout: must be greater than 0"));
}

TEST(CliFace, EveryCommandsHelpShowsOneTypePerNumberOption) {
  for (const auto& command : api::public_commands()) {
    auto r = kprof_cli({command, "--help"});
    ASSERT_EQ(r.exit_code, 0) << command;
    EXPECT_FALSE(has(r.out, "INT:")) << command << "\n" << r.out;
    EXPECT_FALSE(has(r.out, "FLOAT:")) << command << "\n" << r.out;
    EXPECT_FALSE(has(r.out, ".000000")) << command << "\n" << r.out;
  }
  auto env = kprof_cli({"env", "--help"}).out;
  EXPECT_TRUE(has(env, "--gpu INT in [0 - 4095]")) << env;
  EXPECT_TRUE(has(env, "--timeout FLOAT > 0")) << env;
}

// ---- 5. a misspelt option of any command; hints name the real command ---------------------------------

TEST(CliFace, AMisspeltOptionIsNamedForEveryCommand) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"analyze", kCsv, "--tpo", "3"}, "did you mean --top?"},
      {{"analyze", kCsv, "--tpo=3"}, "did you mean --top?"},
      {{"env", "--gpuu=1"}, "did you mean --gpu?"},
      {{"clocks", "--dry-rn"}, "did you mean --dry-run?"},
      {{"build", kVadd, "--acrh", "sm_90"}, "did you mean --arch?"},
      {{"compare", kCsv, kCsv, "--fail-if-slowr", "5"}, "did you mean --fail-if-slower?"},
      {{"profile", kVadd, "--N=8", "--tpo", "3"}, "did you mean --top?"},  // or a dimension written with a space
  };
  for (const auto& [args, note] : cases) {
    auto r = kprof_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << r.combined();
    EXPECT_TRUE(has(r.err, note)) << args[0] << "\n" << r.err;
  }
}

TEST(CliFace, TheHintOfAMisspeltOptionTakenForADimensionNamesTheCommand) {
  auto r = kprof_cli({"check", kVadd, "--ref", kRef, "--atoll=1e-3", "--N=8"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(has(r.err, "did you mean --atol?")) << r.err;
  EXPECT_TRUE(has(r.err, "run `kprof check --help` for its options")) << r.err;
  EXPECT_FALSE(has(r.err, "<command>")) << r.err;
}

// ---- 6. compare says it takes Nsight Compute reports themselves -------------------------------------

TEST(CliFace, CompareOfAnalyzeFoldersPointsToTheReportFiles) {
  TempDir dir;
  for (const std::string o : {"j1", "j2"}) ASSERT_EQ(kprof_cli({"analyze", kCsv, "-o", dir / o}).exit_code, 0);
  auto r = kprof_cli({"compare", dir / "j1", dir / "j2", "-o", dir / "cmp"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_TRUE(has(r.err, "holds neither comparison.json nor profile.json")) << r.err;
  EXPECT_TRUE(has(r.err, "Nsight Compute reports themselves, .ncu-rep or raw .csv files")) << r.err;
  auto help = kprof_cli({"compare", "--help"}).out;
  EXPECT_TRUE(has(help, "Nsight Compute reports are compared too, given as the files themselves")) << help;
  EXPECT_TRUE(has(kprof_cli({"--help"}).out, "or Nsight Compute reports (.ncu-rep / .csv)"));
}

// ---- 7. no "seed" meaning the original scripts; docs named where a pip user finds them ----------------

TEST(CliFace, NoSeedJargonInHelpOrInTheVerdict) {
  TempDir dir;
  auto verdict = kprof_cli({"analyze", kCsv, "-o", dir / "a"});
  ASSERT_EQ(verdict.exit_code, 0) << verdict.combined();
  EXPECT_TRUE(has(verdict.out, "threshold > 60% (kernel-profile scripts)")) << verdict.out;
  const std::regex jargon(R"(\(seed\)|seed's|seed:|seed compat|seed gives)");
  EXPECT_FALSE(std::regex_search(verdict.out, jargon)) << verdict.out;
  EXPECT_FALSE(std::regex_search(read_file(dir / "a/ncu_summary.md"), jargon));
  EXPECT_FALSE(std::regex_search(read_file(dir / "a/ncu_details.md"), jargon));
  for (const auto& command : api::public_commands()) {
    auto help = kprof_cli({command, "--help"}).out;
    EXPECT_FALSE(std::regex_search(help, jargon)) << command << "\n" << help;
    EXPECT_FALSE(has(help, "see README")) << command;
  }
  auto check = kprof_cli({"check", "--help"}).out;
  EXPECT_TRUE(has(check, "docs/REFERENCE.md, Tolerances, in the kprof source")) << check;
  EXPECT_TRUE(has(read_file(std::string(KPROF_SOURCE_DIR) + "/docs/REFERENCE.md"), "### Tolerances"));
}

// ---- 8. env: no lock file left behind; the host labelled -----------------------------------------------

TEST(CliFace, EnvLeavesNoLockFileAndLabelsTheHost) {
  TempDir dir;
  auto r = kprof_cli({"env", "-o", dir / "out/env_check.md"});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.combined();
  EXPECT_TRUE(path_exists(dir / "out/env_check.md")) << r.combined();
  EXPECT_FALSE(path_exists(dir / "out/.kprof.lock"));
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(kprof env \(GPU 0, host \S+\))"))) << r.out;
}
