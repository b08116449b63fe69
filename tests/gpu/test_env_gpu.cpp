// `kprof env`, `__probe`, `clocks --dry-run` and `build` on a machine with a GPU (skipped, with
// the reason, elsewhere). Never changes the GPU's clocks: only --dry-run is used.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "device/cuda.hpp"
#include "stages/env/gpu_info.hpp"
#include "stages/env/probe_kernel.hpp"
#include "core/tools.hpp"
#include "gpu_guard.hpp"
#include "kernel/build.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(EnvGpu, GpuInfoMatchesTheRuntime) {
  KPROF_REQUIRE_GPU();
  GpuInfo g = gpu_info(0);
  ASSERT_TRUE(g.available) << g.error;
  EXPECT_EQ(g.arch, gpu_arch(0));
  EXPECT_EQ(g.name, gpu_name(0));
  EXPECT_EQ(g.l2_bytes, gpu_l2_bytes(0));
  EXPECT_GT(g.sm_count, 0);
  EXPECT_GT(g.memory_bytes, 0u);
  EXPECT_GT(g.versions.driver_api, 0);
  EXPECT_GE(g.versions.device_count, 1);
  if (g.nvml_error.empty()) {
    ASSERT_TRUE(g.clocks.has_value());
    EXPECT_GT(g.clocks->sm_max_mhz, 0u);
    EXPECT_FALSE(g.driver_version.empty());
  }
}

TEST(EnvGpu, ProbeKernelRunsInProcessAndThroughTheBinary) {
  KPROF_REQUIRE_GPU();
  EXPECT_NO_THROW(run_probe_kernel(0));
  ProcessResult r = run_kprof({"__probe"});
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  ProcessResult bad = run_kprof({"__probe", "--gpu", "4000"});
  EXPECT_EQ(bad.exit_code, 2) << bad.combined();
}

TEST(EnvGpu, EnvShowsTheGpuAndTheCounterProbe) {
  KPROF_REQUIRE_GPU();
  TempDir d;
  ProcessResult r = run_kprof({"env", "-o", d / "env_check.md"}, {}, "", 300);
  EXPECT_NE(r.exit_code, 2) << r.combined();
  auto j = nlohmann::json::parse(read_file_or_empty(d / "env_check.json"));
  EXPECT_TRUE(j["gpu"]["available"].get<bool>());
  EXPECT_EQ(j["gpu"]["name"], gpu_name(0));
  std::string md = read_file_or_empty(d / "env_check.md");
  EXPECT_TRUE(contains(md, gpu_name(0)));
  if (!ncu_path().empty()) {
    // The probe ran; counters are either readable or the failure carries a fix.
    EXPECT_TRUE(j["tools"]["ncu"]["counters"]["checked"].get<bool>()) << md;
    if (!j["tools"]["ncu"]["counters"]["readable"].get<bool>())
      EXPECT_FALSE(j["tools"]["ncu"]["counters"]["fix"].get<std::string>().empty());
  }
  EXPECT_EQ(j["ready"].get<bool>(), r.exit_code == 0);
}

TEST(EnvGpu, ClocksDryRunNamesTheLock) {
  KPROF_REQUIRE_GPU();
  // The default is the base (TDP) clock, nvbench's advice for stable results; --max the maximum.
  ProcessResult r = run_kprof({"clocks", "--lock", "--dry-run"});
  if (contains(r.combined(), "cannot read the clocks")) GTEST_SKIP() << "NVML unavailable: " << r.combined();
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_TRUE(contains(r.out, "would lock the SM clock at its base (TDP) clock")) << r.out;
  EXPECT_TRUE(contains(r.out, "NVML_CLOCK_LIMIT_ID_TDP")) << r.out;
  EXPECT_TRUE(contains(r.out, "dry run: nothing changed"));
  ProcessResult m = run_kprof({"clocks", "--lock", "--max", "--dry-run"});
  EXPECT_EQ(m.exit_code, 0) << m.combined();
  EXPECT_TRUE(contains(m.out, "would lock the SM clock at its maximum")) << m.out;
  EXPECT_FALSE(contains(m.out, "<max SM clock>")) << m.out;
  EXPECT_TRUE(contains(m.out, "dry run: nothing changed"));
}

TEST(EnvGpu, BuildDefaultsToTheGpusArchitecture) {
  KPROF_REQUIRE_GPU();
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  write(d / "k.cu", "extern \"C\" void solve(float* x, int n) { (void)x; (void)n; }\n");
  BuildOptions o;
  o.source = d / "k.cu";
  o.echo = false;
  BuildResult r = build_kernel(o);
  EXPECT_EQ(r.arch, gpu_arch(0));
  EXPECT_FALSE(needs_rebuild(o.source, r.output));
}
