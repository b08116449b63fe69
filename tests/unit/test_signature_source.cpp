// Reading solve() as nvcc compiles it: nvcc's plan (--dryrun) parsed for the host preprocessing
// step, the flags from the build record or the `--` flags, the #if branch named, the cache, and
// the text reading (with a note) without nvcc.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/tools.hpp"
#include "kernel/build_record.hpp"
#include "kernel/preprocess.hpp"
#include "kernel/signature_source.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;

namespace {

const std::string kKernels = std::string(KPROF_SOURCE_DIR) + "/tests/bad_inputs/kernels";

std::string scratch(const std::string& leaf) {
  std::string dir = std::string(::testing::TempDir()) + "/kprof_sigsrc_" + std::to_string(::getpid());
  make_dirs(dir);
  return join_path(dir, leaf);
}

using kprof::testutil::ScopedEnv;  // sets a variable and kprof's settings (core/settings.hpp) for one test

std::string names(const Signature& s) {
  std::string out;
  for (const auto& p : s.params) out += (out.empty() ? "" : ",") + p.type_text + " " + p.name;
  return out;
}

SignatureRequest request(const std::string& kernel, std::vector<std::string> flags = {}) {
  SignatureRequest r;
  r.kernel_path = kernel;
  r.so_path = scratch(file_stem(kernel) + ".so");
  r.arch = "sm_90";
  r.nvcc_flags = std::move(flags);
  return r;
}

}  // namespace

TEST(SignatureSource, ShellWordsOfADryRunLine) {
  EXPECT_EQ(
      split_shell_words(R"(gcc -D__CUDACC__ "-I/usr/local/cuda/include"  -D "USE X" 'a b' c\ d)"),
      (std::vector<std::string>{"gcc", "-D__CUDACC__", "-I/usr/local/cuda/include", "-D", "USE X", "a b", "c d"}));
}

TEST(SignatureSource, TheHostStepOfNvccsPlanIsTheEWithoutCudaArch) {
  // Two lines of `nvcc --dryrun` (CUDA 13.0): the host preprocessing and the device one.
  const std::string plan =
      "#$ _NVVM_BRANCH_=nvvm\n"
      "#$ gcc -std=c++17 -D__CUDA_ARCH_LIST__=900 -E -x c++ -D__CUDACC__ -D__NVCC__  -fPIC -O3 "
      "\"-I/usr/local/cuda/bin/../targets/x86_64-linux/include\" -D \"USE_DOUBLE\" -include \"cuda_runtime.h\" "
      "-m64 \"t1.cu\" -o \"/tmp/tmpxft_00003010_00000000-5_t1.cpp4.ii\" \n"
      "#$ gcc -std=c++17 -D__CUDA_ARCH__=900 -D__CUDA_ARCH_LIST__=900 -E -x c++ -DCUDA_DOUBLE_MATH_FUNCTIONS "
      "-D__CUDACC__ \"t1.cu\" -o \"/tmp/tmpxft_00003010_00000000-9_t1.cpp1.ii\" \n";
  auto step = host_preprocess_step(plan);
  ASSERT_FALSE(step.empty());
  EXPECT_EQ(step.front(), "gcc");
  EXPECT_EQ(step.back(), "t1.cu");  // -o FILE removed: the text comes on stdout
  EXPECT_NE(std::find(step.begin(), step.end(), "USE_DOUBLE"), step.end());
  for (const auto& w : step) EXPECT_NE(w.rfind("-D__CUDA_ARCH__=", 0), 0u) << w;
  EXPECT_TRUE(host_preprocess_step("#$ gcc -c x.cpp\n").empty());
}

TEST(SignatureSource, EnclosingBranchesAndDistinctiveFlags) {
  const std::string src =
      "#ifndef GUARD\n#define GUARD\n#ifdef USE_DOUBLE\nA\n#elif defined(X) // c\nB\n#else\nC\n#endif\n#endif\n";
  EXPECT_EQ(enclosing_branches(src, 4), "in `#ifndef GUARD` (line 1), `#ifdef USE_DOUBLE` (line 3)");
  EXPECT_EQ(enclosing_branches(src, 6),
            "in `#ifndef GUARD` (line 1), the `#elif defined(X)` branch (line 5) of `#ifdef USE_DOUBLE` (line 3)");
  EXPECT_EQ(enclosing_branches(src, 8),
            "in `#ifndef GUARD` (line 1), the `#else` branch (line 7) of `#ifdef USE_DOUBLE` (line 3)");
  EXPECT_EQ(enclosing_branches("int x;\n", 1), "");
  EXPECT_EQ(distinctive_flags({"nvcc", "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-lineinfo",
                               "-arch=sm_90", "-DUSE_DOUBLE", "-o", "k.so", "k.cu"}),
            "-arch=sm_90 -DUSE_DOUBLE");
}

TEST(SignatureSource, NvccsHostPreprocessingPicksTheCompiledBranch) {
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found";
  ScopedEnv cache("KPROF_CACHE_DIR", scratch("cache_branch"));
  auto plain = read_solve_signature(request(kKernels + "/ifdef_use_double.cu"));
  EXPECT_TRUE(plain.preprocessed);
  EXPECT_EQ(names(plain.signature), "const float* A,float* B,int N");
  EXPECT_NE(plain.how.find("the `#else` branch (line 5) of `#ifdef USE_DOUBLE` (line 2)"), std::string::npos)
      << plain.how;
  EXPECT_NE(plain.how.find("-arch=sm_90"), std::string::npos) << plain.how;
  auto dbl = read_solve_signature(request(kKernels + "/ifdef_use_double.cu", {"-DUSE_DOUBLE"}));
  EXPECT_EQ(names(dbl.signature), "const double* X,double* Y,long M");
  EXPECT_NE(dbl.how.find("-DUSE_DOUBLE"), std::string::npos) << dbl.how;
  EXPECT_NE(dbl.how.find("flags after `--`"), std::string::npos) << dbl.how;
  EXPECT_EQ(names(read_solve_signature(request(kKernels + "/ifndef_cudacc.cu")).signature),
            "const float* A,float* B,int N");
  EXPECT_EQ(names(read_solve_signature(request(kKernels + "/macro_types.cu")).signature),
            "const float* A,float* B,int N");
}

TEST(SignatureSource, TheBuildRecordsFlagsWinWhileItDescribesTheLibrary) {
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found";
  ScopedEnv cache("KPROF_CACHE_DIR", scratch("cache_record"));
  const std::string cu = scratch("rec.cu"), so = scratch("rec.so");
  write_file_atomic(cu, read_file(kKernels + "/ifdef_use_double.cu"));
  write_file_atomic(so, "pretend library");
  BuildRecord rec;
  rec.source = cu;
  rec.command = {nvcc_path(),    "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-arch=sm_90",
                 "-DUSE_DOUBLE", "-o",  so,           cu};
  rec.extra_flags = {"-DUSE_DOUBLE"};
  ASSERT_TRUE(write_build_record(so, rec));
  auto back = read_build_record(so, cu);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->extra_flags, rec.extra_flags);
  SignatureRequest req = request(cu);
  req.so_path = so;
  auto r = read_solve_signature(req);
  EXPECT_EQ(names(r.signature), "const double* X,double* Y,long M");
  EXPECT_NE(r.how.find("recorded with " + so), std::string::npos) << r.how;

  std::string why;
  EXPECT_FALSE(read_build_record(so, scratch("other.cu"), &why).has_value());
  EXPECT_NE(why.find("another source"), std::string::npos) << why;
  write_file_atomic(so, "rebuilt by hand, longer than before");  // size changes: the record is stale
  EXPECT_FALSE(read_build_record(so, cu, &why).has_value());
  EXPECT_NE(why.find("changed after kprof built it"), std::string::npos) << why;
}

TEST(SignatureSource, TheCacheServesTheSecondReadingAndNoticesAChangedHeader) {
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found";
  ScopedEnv cache("KPROF_CACHE_DIR", scratch("cache_hits"));
  const std::string hdr = scratch("types.cuh"), cu = scratch("uses_header.cu");
  write_file_atomic(hdr, "typedef float real;\n");
  write_file_atomic(cu, "#include \"types.cuh\"\nextern \"C\" void solve(const real* A, int N) {}\n");
  std::vector<std::string> argv = {nvcc_path(), "-std=c++17", "-arch=sm_90", "-o", scratch("u.so"), cu};
  auto first = preprocess_host(argv, cu);
  ASSERT_TRUE(first.ok) << first.problem;
  EXPECT_FALSE(first.cached);
  auto second = preprocess_host(argv, cu);
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.text, first.text);
  EXPECT_LT(second.wall_s, first.wall_s);
  write_file_atomic(hdr, "typedef double real;  // changed\n");
  auto third = preprocess_host(argv, cu);
  ASSERT_TRUE(third.ok);
  EXPECT_FALSE(third.cached);
  EXPECT_NE(third.text.find("typedef double real"), std::string::npos);
}

TEST(SignatureSource, WithoutNvccTheTextIsReadAndANoteSaysSo) {
  ScopedEnv no_nvcc("KPROF_NVCC", "");
  auto r = read_solve_signature(request(kKernels + "/continuation.cu"));
  EXPECT_FALSE(r.preprocessed);
  EXPECT_EQ(names(r.signature), "const float* A,float* B,int N");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("nvcc not found"), std::string::npos) << r.notes[0];
  try {
    read_solve_signature(request(kKernels + "/macro_types.cu"));
    FAIL() << "REAL is not a type kprof knows without the preprocessor";
  } catch (const Error& e) {
    EXPECT_NE(e.hint().find("nvcc not found"), std::string::npos) << e.hint();
  }
}

TEST(SignatureSource, APreprocessingFailureFallsBackToTheTextWithItsReason) {
  if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found";
  ScopedEnv cache("KPROF_CACHE_DIR", scratch("cache_fail"));
  auto r = read_solve_signature(request(kKernels + "/missing_include.cu"));
  EXPECT_FALSE(r.preprocessed);
  EXPECT_EQ(names(r.signature), "const float* A,float* B,int N");
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("no_such_header.cuh"), std::string::npos) << r.notes.back();
}
