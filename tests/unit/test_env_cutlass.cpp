// Locating the CUTLASS C++ headers: variables, standard places, the nvidia-cutlass pip package.
#include <gtest/gtest.h>

#include "kernel/cutlass.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

// A CUTLASS tree as a checkout has it: include/cutlass/{cutlass.h,version.h}, tools/util/include.
void make_cutlass_tree(const std::string& root, int major, int minor, int patch) {
  write(root + "/include/cutlass/cutlass.h", "#pragma once\n");
  write(root + "/include/cutlass/version.h", "#pragma once\n#include <cstdint>\n#define CUTLASS_MAJOR " +
                                                 std::to_string(major) + "\n#define CUTLASS_MINOR " +
                                                 std::to_string(minor) + "\n#define CUTLASS_PATCH " +
                                                 std::to_string(patch) + " \n");
  write(root + "/tools/util/include/cutlass/util/device_memory.h", "#pragma once\n");
}

CutlassSearch empty_search() {
  CutlassSearch s;
  s.standard_roots.clear();
  s.include_dirs.clear();
  return s;
}

}  // namespace

TEST(Cutlass, VersionFromHeader) {
  TempDir d;
  make_cutlass_tree(d.path(), 4, 2, 0);
  EXPECT_EQ(cutlass_version(d / "include"), "4.2.0");
  EXPECT_EQ(cutlass_version(d / "nowhere"), "unknown");
}

TEST(Cutlass, VariableRootIsUsedWithUtilIncludes) {
  TempDir d;
  make_cutlass_tree(d / "cutlass", 3, 9, 2);
  CutlassSearch s = empty_search();
  s.env_roots = {{"CUTLASS_ROOT", d / "cutlass"}};
  CutlassLookup r = locate_cutlass(s);
  ASSERT_TRUE(r.found) << r.error;
  EXPECT_EQ(r.found->include_dir, d / "cutlass/include");
  EXPECT_EQ(r.found->util_include_dir, d / "cutlass/tools/util/include");
  EXPECT_EQ(r.found->version, "3.9.2");
  EXPECT_EQ(r.found->source, "CUTLASS_ROOT");
}

TEST(Cutlass, WrongVariableIsNamedAndStopsTheSearch) {
  TempDir d;
  make_cutlass_tree(d / "std", 4, 2, 0);
  CutlassSearch s = empty_search();
  s.env_roots = {{"CUTLASS_PATH", d / "empty"}};
  s.standard_roots = {d / "std"};  // would be found, but the explicit variable wins
  CutlassLookup r = locate_cutlass(s);
  EXPECT_FALSE(r.found);
  EXPECT_NE(r.error.find("CUTLASS_PATH=" + d / "empty"), std::string::npos) << r.error;
  EXPECT_NE(r.fix.find("CUTLASS_PATH"), std::string::npos);
}

TEST(Cutlass, StandardRootThenIncludeDirThenPip) {
  TempDir d;
  make_cutlass_tree(d / "pip/source", 4, 2, 0);
  write(d / "usrinclude/cutlass/cutlass.h", "\n");
  CutlassSearch s = empty_search();
  s.pip_source = d / "pip/source";
  s.pip_version = "4.2.0.0";
  CutlassLookup r = locate_cutlass(s);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.found->source, "pip nvidia-cutlass 4.2.0.0");
  EXPECT_EQ(r.found->util_include_dir, d / "pip/source/tools/util/include");

  s.include_dirs = {d / "usrinclude"};
  r = locate_cutlass(s);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.found->include_dir, d / "usrinclude");
  EXPECT_EQ(r.found->version, "unknown");

  make_cutlass_tree(d / "opt", 3, 5, 1);
  s.standard_roots = {d / "opt"};
  r = locate_cutlass(s);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.found->version, "3.5.1");
}

TEST(Cutlass, NothingFoundSaysWhichVariableToSet) {
  CutlassSearch s = empty_search();
  CutlassLookup r = locate_cutlass(s);
  EXPECT_FALSE(r.found);
  EXPECT_NE(r.error.find("CUTLASS_PATH"), std::string::npos);
  EXPECT_NE(r.fix.find("CUTLASS_PATH"), std::string::npos);
}

TEST(Cutlass, FromEnvironmentReadsTheThreeVariablesInOrder) {
  ScopedEnv a("CUTLASS_PATH", std::nullopt);
  ScopedEnv b("CUTLASS_ROOT", "/r");
  ScopedEnv c("CUTLASS_HOME", "/h");
  CutlassSearch s = CutlassSearch::from_environment();
  ASSERT_EQ(s.env_roots.size(), 2u);
  EXPECT_EQ(s.env_roots[0].first, "CUTLASS_ROOT");
  EXPECT_EQ(s.env_roots[1].first, "CUTLASS_HOME");
}
