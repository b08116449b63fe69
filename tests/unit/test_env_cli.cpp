// `kprof env` end to end through the built binary: exit codes, the two report files, --json,
// bad options, and that hanging tools cannot hang it.
#include <gtest/gtest.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "device/cuda.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(EnvCli, WithoutGpuExitsOneNamingItAndWritesCompleteReports) {
  if (cuda_unavailable_reason().empty())
    GTEST_SKIP() << "this machine has a GPU (tests/gpu/test_env_gpu.cpp covers it)";
  TempDir d;
  ProcessResult r = run_kprof({"env", "-o", d / "out/env_check.md"});
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  EXPECT_TRUE(contains(r.out, "no CUDA driver/GPU")) << r.out;
  EXPECT_TRUE(contains(r.out, "NOT READY")) << r.out;
  std::string md = read_file_or_empty(d / "out/env_check.md");
  for (const char* s :
       {"# kprof environment check", "**NOT READY**", "no CUDA driver/GPU", "## Checks",
        "| CUDA runtime | yes | FAIL |", "| ncu |", "| PyTorch |", "## Implementations", "| cuda-cpp |", "| cutlass |",
        "| triton |", "| cute-dsl |", "## GPU 0", "## Tools", "| nvcc |", "| compute-sanitizer |", "## Python",
        "## CUTLASS C++ headers", "## CUDA environment variables"})
    EXPECT_TRUE(contains(md, s)) << "env_check.md lacks: " << s;
  auto j = nlohmann::json::parse(read_file_or_empty(d / "out/env_check.json"));
  EXPECT_FALSE(j["ready"].get<bool>());
  EXPECT_TRUE(contains(j["gpu"]["error"].get<std::string>(), "no CUDA driver/GPU"));
  EXPECT_EQ(j["implementations"].size(), 4u);
}

TEST(EnvCli, DefaultPathIsProfileOut) {
  TempDir d;
  ProcessResult r = run_kprof({"env", "--timeout", "60"}, {}, d.path());
  EXPECT_NE(r.exit_code, 2) << r.combined();
  EXPECT_FALSE(read_file_or_empty(d / "profile_out/env_check.md").empty());
  EXPECT_FALSE(read_file_or_empty(d / "profile_out/env_check.json").empty());
}

TEST(EnvCli, FolderOutputGetsEnvCheckMdInside) {
  TempDir d;
  run_kprof({"env", "-o", d.path() + "/"});
  EXPECT_FALSE(read_file_or_empty(d / "env_check.md").empty());
}

TEST(EnvCli, JsonFlagPrintsJsonOnStdout) {
  TempDir d;
  ProcessResult r = run_kprof({"env", "--json", "-o", d / "e.md"});
  EXPECT_NE(r.exit_code, 2) << r.combined();
  auto j = nlohmann::json::parse(r.out);  // throws (fails the test) when stdout is not pure JSON
  EXPECT_EQ(j["schema"], "kprof.env/1");
  EXPECT_EQ(j["ready"].get<bool>(), r.exit_code == 0);
}

TEST(EnvCli, BadOptionsExitTwo) {
  for (std::vector<std::string> args : {std::vector<std::string>{"env", "--gpu", "-1"},
                                        {"env", "--gpu", "zero"},
                                        {"env", "--timeout", "0"},
                                        {"env", "--no-such-option"},
                                        {"env", "extra-word"}}) {
    ProcessResult r = run_kprof(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.combined();
  }
}

TEST(EnvCli, HangingToolsCannotHangEnv) {
  TempDir d;
  for (const char* tool : {"nvcc", "ncu", "compute-sanitizer", "python"})
    write(d / std::string("bin/") + tool, "#!/bin/sh\nsleep 120\n", true);
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_kprof({"env", "--timeout", "1", "-o", d / "out/env_check.md"},
                              {{"PATH", d.path() + "/bin:/usr/bin:/bin"}, {"KPROF_PYTHON", d / "bin/python"}}, "", 90);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(s, 30.0);  // 4 probes x (1 s limit + up to 2 s for SIGTERM -> SIGKILL)
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  std::string md = read_file_or_empty(d / "out/env_check.md");
  EXPECT_TRUE(contains(md, "ncu --version timed out after 1 s")) << md;
  EXPECT_TRUE(contains(md, "nvcc --version timed out")) << md;
  EXPECT_TRUE(contains(md, "time limit of 1 s")) << md;  // the Python probe
}
