// Reading a .ncu-rep inside the Python package (hosted mode, core/host.hpp): Nsight Compute's closed
// module never runs in the user's Python process. It crashed there (SIGSEGV in IMetric.unit, `python
// -m kprof run` on the H100 of 2026-12-05, docs/gpu-runs.md) while the executable read the same report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "core/fs.hpp"
#include "core/host.hpp"
#include "python/interpreter.hpp"
#include "fake_ncu_report.hpp"
#include "test_env_util.hpp"

using namespace kprof;
using kprof::testutil::TempDir;

// A whole report (its first check vouches for it), read while hosted: the module is loaded by a
// child Python (the fake writes the loading process's id next to the report), not by this process.
TEST(NcuRepHosted, InThePythonPackageEvenAWholeReportIsReadInAChildProcess) {
  TempDir dir;
  const std::string rep = dir / "whole.ncu-rep";
  write_file_atomic(rep, read_file(std::string(KPROF_TEST_DATA) + "/ncurep/divergent.ncu-rep"));
  Host h;
  h.python = python_executable();  // the interpreter a package user's process would be
  h.self_command = {*h.python, "-m", "kprof"};
  ScopedHost hosted(h);
  ASSERT_TRUE(python_hosted());
  const auto read = testutil::read_with_fake_ncu_report(rep);
  ASSERT_TRUE(read.rep.has_value()) << read.why;
  ASSERT_EQ(read.rep->kernels.size(), 1u);
  EXPECT_EQ(read.rep->kernels[0].name, "child_kernel(float *)");
  EXPECT_FALSE(read.rep->sass_deferred);  // no later lookups in this process either
  ASSERT_NE(read.loader_pid, 0);          // the fake wrote REPORT.pid
  EXPECT_NE(read.loader_pid, static_cast<long>(getpid()));
}
