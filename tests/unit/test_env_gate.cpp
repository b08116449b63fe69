// `kprof run`'s environment check beside the versions (flows/env_gate.hpp): nothing of a
// version is reported before the check passed, and a machine that is not ready stops the run.
#include <gtest/gtest.h>

#include "core/fs.hpp"
#include "flows/env_gate.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(EnvGate, AKnownReportIsUsedAsIsAndWrittenOnce) {
  TempDir dir;
  EnvFacts facts;  // nothing found: no GPU, no tools, no Python
  EnvReport known = assess_env(facts);
  ASSERT_FALSE(known.ready);
  EnvGate gate(EnvOptions{}, &known, dir / "env_check.md");
  EXPECT_FALSE(path_exists(dir / "env_check.md"));  // written by the first wait, not before
  EXPECT_FALSE(gate.wait());
  EXPECT_TRUE(path_exists(dir / "env_check.md"));
  EXPECT_TRUE(path_exists(dir / "env_check.json"));
  EXPECT_FALSE(gate.wait());  // the same answer again
  EXPECT_EQ(gate.report().blockers, known.blockers);
}

TEST(EnvGate, ProbesOnItsOwnThread) {
  TempDir dir;
  EnvOptions o;
  o.progress = false;
  o.timeout_s = 30;
  EnvGate gate(o, nullptr, dir / "env_check.md");
  bool ready = gate.wait();
  EXPECT_EQ(ready, gate.report().ready);
  EXPECT_FALSE(gate.report().facts.date.empty());
  EXPECT_TRUE(gate.report().facts.python.ran || !gate.report().facts.python.error.empty());
  EXPECT_TRUE(path_exists(dir / "env_check.md"));
}

TEST(EnvGate, GpuProbesEndBeforeTheWholeCheckAndCallTheUsersCallbackFirst) {
  TempDir dir;
  EnvFacts facts;
  EnvReport known = assess_env(facts);
  EnvGate with_known(EnvOptions{}, &known, dir / "known.md");
  with_known.wait_gpu_probes();  // nothing probes: returns at once
  EnvOptions o;
  o.progress = false;
  o.timeout_s = 30;
  bool called = false;
  o.on_counters_probed = [&called](const EnvFacts&) { called = true; };
  EnvGate gate(o, nullptr, dir / "env_check.md");
  gate.wait_gpu_probes();                           // the ncu probe ended (or was skipped: no GPU or no ncu here)
  EXPECT_FALSE(path_exists(dir / "env_check.md"));  // the rest (the Python probe) may still run
  gate.wait();
  EXPECT_TRUE(called);
  gate.wait_gpu_probes();  // again: still returns
}

TEST(RunEnvGate, AMachineThatIsNotReadyReportsNoVersion) {
  // On a machine without a GPU (CI) the version's load fails beside the environment check; the run
  // then says why (the blockers), exits 1, and writes neither a version's reports nor a comparison.
  if (path_exists("/dev/nvidia0")) GTEST_SKIP() << "a GPU machine: its environment may be ready";
  TempDir dir;
  std::string ex = std::string(KPROF_SOURCE_DIR) + "/examples/attention/triton/";
  auto r =
      run_kprof({"run", ex + "v0.py", "--ref", ex + "ref.py", "--B=1", "--H=1", "--N=16", "--D=16", "-o", dir.path()});
  std::string all = r.out + r.err;
  EXPECT_EQ(r.exit_code, 1) << all;
  EXPECT_TRUE(contains(all, "environment: NOT ready")) << all;
  EXPECT_TRUE(contains(all, "no kernel result of this run is valid or reported")) << all;
  EXPECT_FALSE(contains(all, "[v0] load: ERROR")) << all;  // the blockers explain it, not the version
  EXPECT_TRUE(path_exists(dir / "env_check.md"));
  EXPECT_FALSE(path_exists(dir / "comparison.md"));
  EXPECT_FALSE(path_exists(dir / "v0/correctness.md"));
}
