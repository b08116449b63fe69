// Reading a .ncu-rep inside the Python package (hosted mode, core/host.hpp): Nsight Compute's closed
// module never runs in the user's Python process. It crashed there (SIGSEGV in IMetric.unit, `python
// -m kprof run` on the H100 of 2026-12-05, docs/gpu-runs.md) while the executable read the same report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "core/fs.hpp"
#include "core/host.hpp"
#include "core/settings.hpp"
#include "python/interpreter.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "test_env_util.hpp"

using namespace kprof;
using kprof::testutil::TempDir;

namespace {
std::string data(const std::string& rel) { return std::string(KPROF_TEST_DATA) + "/" + rel; }
}  // namespace

// A whole report (its first check vouches for it), read while hosted: the module is loaded by a
// child Python (the fake writes the loading process's id next to the report), not by this process.
TEST(NcuRepHosted, InThePythonPackageEvenAWholeReportIsReadInAChildProcess) {
  TempDir dir;
  const std::string rep = dir / "whole.ncu-rep";
  write_file_atomic(rep, read_file(data("ncurep/divergent.ncu-rep")));
  Settings s = settings();
  s.ncu_report = data("fake_ncu_report");
  ScopedSettings scoped(s);
  Host h;
  h.python = python_executable();  // the interpreter a package user's process would be
  h.self_command = {*h.python, "-m", "kprof"};
  ScopedHost hosted(h);
  ASSERT_TRUE(python_hosted());
  NcuRepReadOptions o;
  o.metrics = o.source = o.rules = false;
  std::string why;
  auto got = try_read_ncu_rep(rep, o, &why);
  ASSERT_TRUE(got.has_value()) << why;
  ASSERT_EQ(got->kernels.size(), 1u);
  EXPECT_EQ(got->kernels[0].name, "child_kernel(float *)");
  EXPECT_FALSE(got->sass_deferred);  // no later lookups in this process either
  ASSERT_TRUE(path_exists(rep + ".pid"));
  EXPECT_NE(std::stol(read_file(rep + ".pid")), static_cast<long>(getpid()));
}
