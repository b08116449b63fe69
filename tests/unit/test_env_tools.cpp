// Tool probes of `kprof env`: version parsing, PATH lookup, time limits (a hanging tool cannot
// hang env), and reading the ncu counter probe (ERR_NVGPUCTRPERM, "No kernels were profiled").
#include <gtest/gtest.h>

#include "core/host.hpp"
#include "core/tools.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(EnvTools, ParsesNvccVersionFromRealOutput) {
  // nvcc --version of CUDA 13.0, as printed on this machine.
  const std::string out =
      "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
      "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n"
      "Build cuda_13.0.r13.0/compiler.36424714_0\n";
  EXPECT_EQ(parse_tool_version(out), "13.0.88");
}

TEST(EnvTools, ParsesNsightVersionLine) {
  EXPECT_EQ(parse_tool_version("NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA "
                               "Corporation\nVersion 2025.3.1.0 (build 36398880) (public-release)\n"),
            "2025.3.1.0");
  EXPECT_EQ(parse_tool_version("something else entirely"), "");
}

TEST(EnvTools, RealNvccIsFoundAndVersioned) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc on this machine";
  ToolInfo t = probe_tool("nvcc", 30);
  EXPECT_TRUE(t.ok()) << t.error;
  EXPECT_FALSE(t.version.empty());
  EXPECT_NE(t.version.find('.'), std::string::npos);
}

TEST(EnvTools, ToolOnPathWinsAndHangingToolIsStopped) {
  TempDir d;
  write(d / "bin/ncu", "#!/bin/sh\nsleep 30\n", true);
  ScopedEnv path("PATH", d.path() + "/bin:" + std::getenv("PATH"));
  EXPECT_EQ(find_tool("ncu"), d.path() + "/bin/ncu");
  ToolInfo t = probe_tool("ncu", 1.0);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(t.error.find("timed out"), std::string::npos) << t.error;
}

TEST(EnvTools, FailingToolSaysWhy) {
  TempDir d;
  write(d / "bin/compute-sanitizer", "#!/bin/sh\necho 'broken install' >&2\nexit 3\n", true);
  ScopedEnv path("PATH", d.path() + "/bin:" + std::getenv("PATH"));
  ToolInfo t = probe_tool("compute-sanitizer", 10);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(t.error.find("exit 3"), std::string::npos) << t.error;
  EXPECT_NE(t.error.find("broken install"), std::string::npos) << t.error;
}

TEST(EnvTools, MissingToolIsReportedNotThrown) {
  ScopedEnv path("PATH", "/nonexistent-kprof-dir");
  ScopedEnv home("CUDA_HOME", std::nullopt);
  ScopedEnv cpath("CUDA_PATH", std::nullopt);
  ToolInfo t = probe_tool("kprof-no-such-tool", 5);
  EXPECT_TRUE(t.path.empty());
  EXPECT_NE(t.error.find("not found"), std::string::npos);
}

TEST(NcuProbe, ReadsTheMetricFromTextOutput) {
  ProcessResult r;
  r.exit_code = 0;
  r.out =
      "==PROF== Connected to process 4242 (/usr/bin/kprof)\n"
      "==PROF== Profiling \"kprof_probe_kernel\" - 0: 0%....50%....100% - 1 pass\n"
      "==PROF== Disconnected from process 4242\n[4242] kprof@127.0.0.1\n"
      "  kprof_probe_kernel(unsigned int *) (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
      "    Section: Command line profiler metrics\n    ---------------------- ----------- ------------\n"
      "    Metric Name            Metric Unit Metric Value\n    ---------------------- ----------- ------------\n"
      "    sm__cycles_elapsed.avg       cycle        3,412.55\n";
  NcuCounters c = parse_ncu_probe(r);
  EXPECT_TRUE(c.readable);
  EXPECT_DOUBLE_EQ(c.cycles, 3412.55);
  EXPECT_TRUE(c.error.empty());
}

TEST(NcuProbe, ReadsTheMetricFromCsvOutput) {
  ProcessResult r;
  r.exit_code = 0;
  r.out =
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"kprof_probe_kernel\",\"sm__cycles_elapsed.avg\",\"cycle\",\"12,345\"\n";
  NcuCounters c = parse_ncu_probe(r);
  EXPECT_TRUE(c.readable);
  EXPECT_DOUBLE_EQ(c.cycles, 12345);
}

TEST(NcuProbe, RecognisesCounterPermissionError) {
  ProcessResult r;
  r.exit_code = 1;
  r.out =
      "==PROF== Connected to process 77 (/usr/bin/kprof)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
      "Counters on the target device 0. For instructions on enabling permissions and to get more "
      "information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
      "==PROF== Disconnected from process 77\n==WARNING== No kernels were profiled.\n";
  NcuCounters c = parse_ncu_probe(r);
  EXPECT_FALSE(c.readable);
  EXPECT_TRUE(c.permission_denied);
  EXPECT_NE(c.fix.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(c.fix.find("https://developer.nvidia.com/ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(c.fix.find("root"), std::string::npos);
  EXPECT_TRUE(is_counter_permission_error(r.out));
  EXPECT_FALSE(is_counter_permission_error("==PROF== all fine"));
}

TEST(NcuProbe, RecognisesNoKernelsProfiled) {
  ProcessResult r;
  r.exit_code = 0;
  r.out =
      "==PROF== Connected to process 9\n==ERROR== The application returned an error code (1).\n"
      "==WARNING== No kernels were profiled.\n";
  NcuCounters c = parse_ncu_probe(r);
  EXPECT_FALSE(c.readable);
  EXPECT_FALSE(c.permission_denied);
  EXPECT_TRUE(c.no_kernels);
  EXPECT_NE(c.error.find("returned an error code (1)"), std::string::npos) << c.error;
  EXPECT_FALSE(c.fix.empty());
}

TEST(NcuProbe, FakeNcuWithPermissionErrorThroughTheRealProbe) {
  TempDir d;
  write(d / "ncu",
        "#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
        "Performance Counters on the target device 0.'\necho \"$@\" > \"$(dirname \"$0\")/args\"\nexit 1\n",
        true);
  NcuCounters c = probe_ncu_counters(d / "ncu", {"/bin/true", "__probe"}, 10);
  EXPECT_TRUE(c.checked);
  EXPECT_TRUE(c.permission_denied);
  std::string args = read_file_or_empty(d / "args");
  EXPECT_NE(args.find("--clock-control none --metrics sm__cycles_elapsed.avg --target-processes all /bin/true __probe"),
            std::string::npos)
      << args;
  EXPECT_NE(c.command.find("sm__cycles_elapsed.avg"), std::string::npos);
}

TEST(NcuProbe, HangingNcuIsStoppedAtItsLimit) {
  TempDir d;
  write(d / "ncu", "#!/bin/sh\nsleep 60\n", true);
  NcuCounters c = probe_ncu_counters(d / "ncu", {"/bin/true"}, 1.0);
  EXPECT_TRUE(c.checked);
  EXPECT_FALSE(c.readable);
  EXPECT_NE(c.error.find("time limit"), std::string::npos) << c.error;
}

TEST(EnvTools, SelfExePathIsThisTestBinary) {
  std::string p = self_exe_path();
  EXPECT_FALSE(p.empty());
  EXPECT_NE(p.find("kprof_tests"), std::string::npos) << p;
}

TEST(EnvTools, SelfCommandIsTheExecutableUnlessThePackageSetsIt) {
  EXPECT_EQ(self_command(), std::vector<std::string>{self_exe_path()});
  {
    Host h;
    h.self_command = {"/usr/bin/python3", "-m", "kprof"};
    ScopedHost hosted(h);  // what the Python package's set_host gives
    EXPECT_EQ(self_command(), (std::vector<std::string>{"/usr/bin/python3", "-m", "kprof"}));
  }
  EXPECT_EQ(self_command(), std::vector<std::string>{self_exe_path()});
}
