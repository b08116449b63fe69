// Which solve() the .so exports: C linkage only, overloads / namespaces / static / __device__
// ignored, the mangled name of a solve without extern "C", line splices and line markers, and the
// mangling checked against the system's C++ compiler.
#include <gtest/gtest.h>

#include <unistd.h>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "kernel/signature.hpp"
#include "kernel/signature_lexer.hpp"

using namespace kprof;

namespace {

std::string error_of(const std::string& src, bool preprocessed = false) {
  try {
    parse_solve_signature(src, preprocessed);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    return std::string(e.what()) + "\n" + e.hint();
  }
  ADD_FAILURE() << "expected an error for:\n" << src;
  return "";
}

std::string names(const Signature& s) {
  std::string out;
  for (const auto& p : s.params) out += (out.empty() ? "" : ",") + p.type_text + " " + p.name;
  return out;
}

}  // namespace

TEST(SignatureLinkage, OverloadsNamespacesStaticAndDeviceFunctionsAreNotTheExportedSolve) {
  auto s = parse_solve_signature(R"(
namespace detail { void solve(double* x, int n) {} }
static void solve(double* y, long m) {}
namespace { extern "C" void solve(int* z) {} }
__device__ float solve(float v) { return v; }
int solve(int q) { return q; }
template <typename T> void solve(T* t) {}
extern "C" void solve(const float* A, float* B, int N) {}
)");
  EXPECT_EQ(names(s), "const float* A,float* B,int N");
  EXPECT_EQ(s.line, 8);
}

TEST(SignatureLinkage, AnExternCDeclarationGivesTheMatchingDefinitionCLinkage) {
  auto s = parse_solve_signature(R"(
extern "C" void solve(const float*, float*, int);
void solve(double* other, int n) {}
void solve(const float* A, float* B, int N) {}
)");
  EXPECT_EQ(names(s), "const float* A,float* B,int N");
  EXPECT_EQ(s.line, 4);
}

TEST(SignatureLinkage, ExternCxxInsideExternCIsCxx) {
  auto s = parse_solve_signature(R"(
extern "C" {
extern "C++" void solve(double* cxx) {}
void solve(float* c_one) {}
}
)");
  EXPECT_EQ(names(s), "float* c_one");
}

TEST(SignatureLinkage, WithoutExternCTheMessageNamesTheMangledSymbol) {
  std::string e = error_of("void solve(const float* A, const float* B, float* C, int N) {}\n");
  EXPECT_NE(e.find("is not extern \"C\""), std::string::npos) << e;
  EXPECT_NE(e.find("_Z5solvePKfS0_Pfi"), std::string::npos) << e;
  EXPECT_NE(e.find("declare it as extern \"C\""), std::string::npos) << e;
}

TEST(SignatureLinkage, OnlyIgnoredSolvesAreListedWithTheirReason) {
  std::string e = error_of(R"(
namespace k { void solve(float* a) {} }
static void solve(int* b) {}
__device__ void solve(double* c) {}
)");
  EXPECT_NE(e.find("no `extern \"C\" void solve(...)` found"), std::string::npos) << e;
  EXPECT_NE(e.find("C++ linkage in namespace k"), std::string::npos) << e;
  EXPECT_NE(e.find("static or in an unnamed namespace"), std::string::npos) << e;
  EXPECT_NE(e.find("a __device__ function"), std::string::npos) << e;
}

TEST(SignatureLinkage, AnExternCDeviceOrGlobalSolveIsStillAnError) {
  EXPECT_NE(error_of("extern \"C\" __device__ void solve(float* a) {}").find("__device__"), std::string::npos);
  EXPECT_NE(error_of("extern \"C\" __global__ void solve(float* a) {}").find("__global__"), std::string::npos);
}

TEST(SignatureLinkage, LineSpliceInsideTheParameterList) {
  auto s = parse_solve_signature("extern \"C\" void solve(const float* A, \\\n    float* B, \\\r\n int N) {}\n");
  EXPECT_EQ(names(s), "const float* A,float* B,int N");
}

TEST(SignatureLinkage, TextReadingOfTwoBranchesReadsTheFirstAndSaysSo) {
  auto s = parse_solve_signature(R"(
#ifdef USE_DOUBLE
extern "C" void solve(double* X, long M) {}
#else
extern "C" void solve(float* A, int N) {}
#endif
)");
  EXPECT_EQ(names(s), "double* X,long M");
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("read the first"), std::string::npos) << s.notes[0];
}

TEST(SignatureLinkage, LineMarkersGiveFileAndLineAndSystemHeadersAreSkipped) {
  const std::string pp =
      "# 1 \"k.cu\"\n"
      "# 1 \"/usr/include/sys.h\" 1 3 4\n"
      "extern \"C\" void solve(int* from_system_header);\n"
      "# 2 \"k.cu\" 2\n"
      "namespace n { void solve(float* x) {} }\n"
      "# 40 \"k.cu\"\n"
      "extern \"C\" void solve(const float* A, int N) {}\n";
  std::vector<std::string> files;
  auto toks = lex_cxx(pp, &files);
  for (const auto& t : toks) EXPECT_NE(t.text, "from_system_header");
  auto s = parse_solve_signature(pp, /*preprocessed=*/true);
  EXPECT_EQ(names(s), "const float* A,int N");
  EXPECT_EQ(s.file, "k.cu");
  EXPECT_EQ(s.line, 40);
}

TEST(SignatureLinkage, MangledNamesOfCommonSignatures) {
  auto params = [](const std::string& list) {
    return parse_solve_signature("extern \"C\" void solve(" + list + ") {}").params;
  };
  EXPECT_EQ(mangled_solve_name(params("const float* A, const float* B, float* C, int N")), "_Z5solvePKfS0_Pfi");
  EXPECT_EQ(mangled_solve_name(params("")), "_Z5solvev");
  EXPECT_EQ(mangled_solve_name(params("const half* q, half* o, size_t n")), "_Z5solvePK6__halfPS_m");
  EXPECT_EQ(mangled_solve_name(params("double* x, double* y, unsigned long long n, long long m")), "_Z5solvePdS_yx");
}

TEST(SignatureLinkage, MangledNamesMatchTheSystemCompiler) {
  const std::string dir = std::string(::testing::TempDir()) + "/kprof_mangle_" + std::to_string(::getpid());
  make_dirs(dir);
  const std::vector<std::string> lists = {
      "const float* A, const float* B, float* C, int N", "double* x, const double* y, long n, float alpha",
      "const int8_t* q, uint8_t* o, unsigned n", "const unsigned short* a, short* b, char* c, signed char* d",
      "const int64_t* a, uint64_t* b, size_t n, long long m",
      // more than 11 substitutions: seq-ids go on in base 36 (S9_, SA_, SB_, ...)
      "const float* a, const double* b, const int* c, const long* d, const short* e, const char* f, "
      "const unsigned* g, const unsigned long* h, const unsigned long* h2, const short* e2"};
  for (const auto& list : lists) {
    std::string expect = mangled_solve_name(parse_solve_signature("extern \"C\" void solve(" + list + ") {}").params);
    write_file_atomic(dir + "/m.cpp", "#include <cstdint>\n#include <cstddef>\nvoid solve(" + list + ") {}\n");
    ProcessResult cc = run_process({"c++", "-c", "-o", dir + "/m.o", dir + "/m.cpp"});
    if (cc.not_found) GTEST_SKIP() << "no c++ compiler on PATH";
    ASSERT_TRUE(cc.ok()) << cc.combined();
    ProcessResult nm = run_process({"nm", "-g", dir + "/m.o"});
    if (nm.not_found) GTEST_SKIP() << "no nm on PATH";
    EXPECT_NE(nm.out.find(" T " + expect + "\n"), std::string::npos) << list << ": " << expect << "\n" << nm.out;
  }
}

TEST(SignatureLinkage, ExecutionSpacesAsNvccsHostPreprocessingWritesThem) {
  // crt/host_defines.h: __global__ -> __attribute__((global)), __device__ -> __attribute__((device)).
  EXPECT_NE(error_of("# 1 \"k.cu\"\nextern \"C\" __attribute__((global)) void solve(float* a, int n) {}\n", true)
                .find("__global__"),
            std::string::npos);
  auto s = parse_solve_signature(
      "# 1 \"k.cu\"\n__attribute__((device)) float solve(float x) { return x; }\n"
      "extern \"C\" __attribute__((host)) __attribute__((device)) void solve(const float* A, int N) {}\n",
      true);
  EXPECT_EQ(names(s), "const float* A,int N");
}
