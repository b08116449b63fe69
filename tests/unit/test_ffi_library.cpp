// Loading the kernel .so: default path, the nvcc line in every hint, and one clear message for a
// missing file, an unloadable file, an undefined symbol, a missing or C++-mangled solve.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "kernel/build.hpp"
#include "kernel/elf_check.hpp"
#include "kernel/library.hpp"
#include "kernel/so_kernel.hpp"
#include "unit/test_ffi_util.hpp"

using namespace kprof;
using kprof_test::TempDir;
using kprof_test::usage_error_of;

namespace {}  // namespace

TEST(KernelLibrary, DefaultSoPathIsTheSibling) {
  EXPECT_EQ(default_so_path("kernels/v1.cu"), "kernels/v1.so");
  EXPECT_EQ(default_so_path("/abs/dir/matmul.cu"), "/abs/dir/matmul.so");
  EXPECT_EQ(default_so_path("add.cu"), "add.so");
}

TEST(KernelLibrary, BuildLineIsExact) {
  // The same flags as `kprof build` (nvcc_command), so the hint and the build agree.
  EXPECT_EQ(nvcc_build_line("k/add.cu", "k/add.so", "sm_90"),
            "nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=sm_90 -o k/add.so k/add.cu");
  EXPECT_EQ(nvcc_build_line("my dir/a.cu", "my dir/a.so", "sm_80"),
            "nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=sm_80 -o 'my dir/a.so' 'my dir/a.cu'");
  EXPECT_EQ(nvcc_build_line("k/add.cu", "k/add.so", "sm_90"),
            shell_join(nvcc_command("nvcc", "k/add.cu", "k/add.so", "sm_90", Implementation::CudaCpp, nullptr, {})));
  std::string hint = build_hint("add.cu", "add.so", "sm_90");
  EXPECT_NE(hint.find("nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=sm_90 -o add.so add.cu"),
            std::string::npos);
  EXPECT_NE(hint.find("kprof build add.cu"), std::string::npos);
  EXPECT_NE(hint.find("--build"), std::string::npos);
}

TEST(KernelLibrary, CutlassBuildLineAddsIncludes) {
  const char* saved[3] = {std::getenv("CUTLASS_PATH"), std::getenv("CUTLASS_ROOT"), std::getenv("CUTLASS_HOME")};
  std::string keep[3];
  for (int i = 0; i < 3; ++i) keep[i] = saved[i] ? saved[i] : "";
  unsetenv("CUTLASS_PATH");
  unsetenv("CUTLASS_ROOT");
  unsetenv("CUTLASS_HOME");
  std::string generic = nvcc_build_line("g.cu", "g.so", "sm_90", Implementation::Cutlass);
  EXPECT_NE(generic.find("-arch=sm_90 -I $CUTLASS_PATH/include -I $CUTLASS_PATH/tools/util/include "
                         "--expt-relaxed-constexpr --expt-extended-lambda -DNDEBUG -o g.so g.cu"),
            std::string::npos)
      << generic;
  setenv("CUTLASS_ROOT", "/opt/cutlass", 1);
  std::string rooted = nvcc_build_line("g.cu", "g.so", "sm_90", Implementation::Cutlass);
  EXPECT_NE(rooted.find("-I /opt/cutlass/include -I /opt/cutlass/tools/util/include --expt-relaxed-constexpr"),
            std::string::npos)
      << rooted;
  unsetenv("CUTLASS_ROOT");
  const char* names[3] = {"CUTLASS_PATH", "CUTLASS_ROOT", "CUTLASS_HOME"};
  for (int i = 0; i < 3; ++i)
    if (saved[i]) setenv(names[i], keep[i].c_str(), 1);
}

TEST(KernelLibrary, HintArchIsTheGpusOrSm90) {
  std::string arch = build_arch_for_hints();
  if (!cuda_unavailable_reason().empty())
    EXPECT_EQ(arch, "sm_90");
  else
    EXPECT_TRUE(std::regex_match(arch, std::regex("sm_[0-9]{2,3}[a-z]?"))) << arch;
}

TEST(KernelLibrary, MissingFile) {
  TempDir dir;
  std::string e =
      usage_error_of([&] { KernelLibrary::open(dir.file("nope.so"), build_hint("nope.cu", "nope.so", "sm_90")); });
  EXPECT_NE(e.find("nope.so not found"), std::string::npos) << e;
  EXPECT_NE(e.find("nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=sm_90 -o nope.so nope.cu"),
            std::string::npos)
      << e;
}

TEST(KernelLibrary, NotAnElfFileIsFoundBeforeLoading) {
  TempDir dir;
  write_file_atomic(dir.file("junk.so"), "this is not a shared library\n");
  std::string e = usage_error_of([&] { KernelLibrary::open(dir.file("junk.so"), "HINT"); });
  if (elf_check_available())  // read as ELF (libelf), never handed to dlopen
    EXPECT_NE(
        e.find("junk.so is not a shared library: not an ELF file (it starts with \"this is not a shared library\")"),
        std::string::npos)
        << e;
  else
    EXPECT_NE(e.find("cannot load kernel library"), std::string::npos) << e;
  EXPECT_NE(e.find("HINT"), std::string::npos) << e;
}

TEST(KernelLibrary, UndefinedSymbolShowsDlerror) {
  std::string cc = kprof_test::c_compiler();
  if (cc.empty()) GTEST_SKIP() << "needs a C compiler";
  TempDir dir;
  std::string so = kprof_test::build_shared_library(
      dir, "undef", "extern void kprof_missing_function(void);\nvoid solve(void) { kprof_missing_function(); }\n", cc,
      "c");
  ASSERT_FALSE(so.empty());
  std::string e = usage_error_of([&] { KernelLibrary::open(so, "HINT"); });
  EXPECT_NE(e.find("undefined symbol: kprof_missing_function"), std::string::npos) << e;
}

TEST(KernelLibrary, NoSolveSymbol) {
  std::string cc = kprof_test::c_compiler();
  if (cc.empty()) GTEST_SKIP() << "needs a C compiler";
  TempDir dir;
  std::string so = kprof_test::build_shared_library(dir, "helper", "void solve_helper(int* x) { *x = 1; }\n", cc, "c");
  ASSERT_FALSE(so.empty());
  std::string e = usage_error_of([&] { KernelLibrary::open(so, "HINT"); });
  EXPECT_NE(e.find("has no symbol `solve`"), std::string::npos) << e;
  EXPECT_EQ(e.find("mangled"), std::string::npos) << e;
  EXPECT_NE(e.find("HINT"), std::string::npos) << e;
}

TEST(KernelLibrary, MangledSolveSaysExternC) {
  std::string cxx = kprof_test::cxx_compiler();
  if (cxx.empty()) GTEST_SKIP() << "needs a C++ compiler";
  TempDir dir;
  std::string so =
      kprof_test::build_shared_library(dir, "mangled", "void solve(float* a, int n) { a[0] = n; }\n", cxx, "cpp");
  ASSERT_FALSE(so.empty());
  std::string e = usage_error_of([&] { KernelLibrary::open(so, "HINT"); });
  EXPECT_NE(e.find("_Z5solvePfi"), std::string::npos) << e;
  EXPECT_NE(e.find("extern \"C\""), std::string::npos) << e;
}

TEST(KernelLibrary, LoadsByRelativePathAndFindsSymbols) {
  std::string cc = kprof_test::c_compiler();
  if (cc.empty()) GTEST_SKIP() << "needs a C compiler";
  TempDir dir;
  std::string so =
      kprof_test::build_shared_library(dir, "ok", "int other = 7;\nvoid solve(int* x) { *x = 3; }\n", cc, "c");
  ASSERT_FALSE(so.empty());
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  std::unique_ptr<KernelLibrary> lib;
  EXPECT_NO_THROW(lib = KernelLibrary::open("ok.so", "HINT"));  // no slash: must not search the system
  ASSERT_EQ(chdir(cwd), 0);
  ASSERT_TRUE(lib);
  EXPECT_EQ(lib->path(), so);
  int x = 0;
  reinterpret_cast<void (*)(int*)>(lib->solve())(&x);
  EXPECT_EQ(x, 3);
  ASSERT_NE(lib->symbol("other"), nullptr);
  EXPECT_EQ(*static_cast<int*>(lib->symbol("other")), 7);
  EXPECT_EQ(lib->symbol("absent_symbol"), nullptr);
}

TEST(KernelLibrary, FindMangledSolve) {
  EXPECT_EQ(find_mangled_solve(std::string("abc\0_Z5solvePKfPfi\0xyz", 23)), "_Z5solvePKfPfi");
  EXPECT_EQ(find_mangled_solve("_Z12solve_helperPf"), "");
  EXPECT_EQ(find_mangled_solve("solve"), "");
}

TEST(SoKernelLoad, MissingLibraryHintNamesTheSourceAndTheSo) {
  TempDir dir;
  std::string cu = dir.file("vadd.cu");
  write_file_atomic(cu, "extern \"C\" void solve(const float* A, float* B, int N) {}\n");
  SoKernelOptions opts;
  opts.kernel_path = cu;
  opts.dims.set("N", "1024");
  std::string e = usage_error_of([&] { load_so_kernel(opts); });
  EXPECT_NE(e.find("vadd.so not found"), std::string::npos) << e;
  EXPECT_NE(e.find("-o " + dir.file("vadd.so") + " " + cu), std::string::npos) << e;
  EXPECT_NE(e.find("-arch=" + build_arch_for_hints()), std::string::npos) << e;
  EXPECT_NE(e.find("kprof build " + cu), std::string::npos) << e;
}

TEST(SoKernelLoad, ExplicitSoPathIsUsed) {
  TempDir dir;
  std::string cu = dir.file("vadd.cu");
  write_file_atomic(cu, "extern \"C\" void solve(const float* A, float* B, int N) {}\n");
  SoKernelOptions opts;
  opts.kernel_path = cu;
  opts.so_path = dir.file("elsewhere.so");
  opts.dims.set("N", "8");
  std::string e = usage_error_of([&] { load_so_kernel(opts); });
  EXPECT_NE(e.find("elsewhere.so not found"), std::string::npos) << e;
}

TEST(SoKernelLoad, MissingDimensionComesBeforeTheLibrary) {
  TempDir dir;
  std::string cu = dir.file("mm.cu");
  write_file_atomic(cu, "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, int K) {}\n");
  SoKernelOptions opts;
  opts.kernel_path = cu;
  opts.dims.set("N", "64");
  std::string e = usage_error_of([&] { load_so_kernel(opts); });
  EXPECT_NE(e.find("--M=, --K="), std::string::npos) << e;
  EXPECT_EQ(e.find("not found"), std::string::npos) << e;
}
