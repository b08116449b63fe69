// `kprof build`: architecture choice, the nvcc line, rebuild decisions, and real compiles with
// nvcc (compiling needs no GPU): a .so that exports solve, a compile error, missing CUTLASS.
#include <gtest/gtest.h>

#include <sys/time.h>

#include "device/cuda.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/tools.hpp"
#include "kernel/build.hpp"
#include "kernel/build_record.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

const char* kAddKernel = R"(#include <cuda_runtime.h>
__global__ void add_k(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" void solve(const float* a, const float* b, float* c, int n) {
  add_k<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
)";

void set_mtime(const std::string& path, double t) {
  struct timeval tv[2] = {{static_cast<time_t>(t), 0}, {static_cast<time_t>(t), 0}};
  ::utimes(path.c_str(), tv);
}

}  // namespace

TEST(Build, DetectsHopperOnlyInstructions) {
  EXPECT_TRUE(uses_hopper_only_features("asm volatile(\"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 ...\");"));
  EXPECT_TRUE(uses_hopper_only_features("asm volatile(\"setmaxnreg.inc.sync.aligned.u32 240;\");"));
  EXPECT_TRUE(uses_hopper_only_features("cp.async.bulk.tensor.2d.shared::cluster.global"));
  EXPECT_TRUE(uses_hopper_only_features("using Atom = SM90_TMA_LOAD;"));
  EXPECT_TRUE(uses_hopper_only_features("using L = GMMA::Layout_K_SW128_Atom<half_t>;"));
  EXPECT_FALSE(uses_hopper_only_features(kAddKernel));
  EXPECT_TRUE(uses_blackwell_only_features("tcgen05.mma.cta_group::1"));
  EXPECT_FALSE(uses_blackwell_only_features(kAddKernel));
}

TEST(Build, ResolvesTheArchitecture) {
  EXPECT_EQ(resolve_arch("", "sm_90", Implementation::CudaCpp, kAddKernel), "sm_90");
  EXPECT_EQ(resolve_arch("", "sm_90", Implementation::CudaCpp, "wgmma.fence"), "sm_90a");
  EXPECT_EQ(resolve_arch("", "sm_90", Implementation::Cutlass, kAddKernel), "sm_90a");  // always for cutlass on sm_90
  EXPECT_EQ(resolve_arch("", "sm_80", Implementation::Cutlass, kAddKernel), "sm_80");
  EXPECT_EQ(resolve_arch("", "sm_80", Implementation::CudaCpp, "wgmma"), "sm_80");  // no sm_80a: nvcc will say why
  EXPECT_EQ(resolve_arch("", "sm_100", Implementation::CudaCpp, "tcgen05.alloc"), "sm_100a");
  EXPECT_EQ(resolve_arch("sm_89", "sm_90", Implementation::CudaCpp, "wgmma"), "sm_89");  // --arch wins
}

TEST(Build, BadArchAndNoGpuAreUsageErrors) {
  try {
    resolve_arch("hopper", "sm_90", Implementation::CudaCpp, "");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(e.hint().find("sm_90"), std::string::npos);
  }
  try {
    resolve_arch("", "", Implementation::CudaCpp, "", "no CUDA driver/GPU: x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("no CUDA driver/GPU"), std::string::npos);
    EXPECT_NE(e.hint().find("--arch"), std::string::npos);
  }
  EXPECT_TRUE(valid_arch("sm_90a"));
  EXPECT_TRUE(valid_arch("sm_100f"));
  EXPECT_FALSE(valid_arch("compute_90"));
  EXPECT_FALSE(valid_arch("sm_9"));
}

TEST(Build, NvccLineHasTheRequiredFlags) {
  CutlassInstall c{"/c/include", "/c/tools/util/include", "4.2.0", "CUTLASS_PATH"};
  auto cmd = nvcc_command("nvcc", "k.cu", "k.so", "sm_90a", Implementation::Cutlass, &c, {"-lcuda"});
  std::string line = shell_join(cmd);
  EXPECT_EQ(line,
            "nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -lineinfo -arch=sm_90a -I /c/include -I "
            "/c/tools/util/include --expt-relaxed-constexpr --expt-extended-lambda -DNDEBUG -lcuda -o k.so k.cu");
  auto plain = shell_join(nvcc_command("nvcc", "k.cu", "k.so", "sm_90", Implementation::CudaCpp, nullptr, {}));
  EXPECT_EQ(plain.find("-I"), std::string::npos);
  EXPECT_EQ(plain.find("expt"), std::string::npos);
}

TEST(Build, DefaultOutputSitsNextToTheSource) {
  EXPECT_EQ(default_output("kernels/v1.cu"), "kernels/v1.so");
  EXPECT_EQ(default_output("v1.cu"), "v1.so");
  EXPECT_EQ(default_output("v1.cu", "out/x.so"), "out/x.so");
}

TEST(Build, NeedsRebuildWhenSoMissingOrOlder) {
  TempDir d;
  write(d / "k.cu", kAddKernel);
  EXPECT_TRUE(needs_rebuild(d / "k.cu", d / "k.so"));
  write(d / "k.so", "x");
  set_mtime(d / "k.cu", 1000);
  set_mtime(d / "k.so", 2000);
  EXPECT_FALSE(needs_rebuild(d / "k.cu", d / "k.so"));
  set_mtime(d / "k.cu", 3000);
  EXPECT_TRUE(needs_rebuild(d / "k.cu", d / "k.so"));
}

TEST(Build, CompilesASharedLibraryExportingSolve) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  write(d / "add.cu", kAddKernel);
  BuildOptions o;
  o.source = d / "add.cu";
  o.arch = "sm_90";
  o.echo = false;
  BuildResult r = build_kernel(o);
  EXPECT_EQ(r.output, d / "add.so");
  EXPECT_EQ(r.arch, "sm_90");
  EXPECT_TRUE(path_exists(r.output));
  EXPECT_FALSE(needs_rebuild(o.source, r.output));
  std::string line = shell_join(r.command);
  for (const char* flag : {"-O3", "-shared", "-fPIC", "-std=c++17", "-lineinfo", "-arch=sm_90"})
    EXPECT_NE(line.find(flag), std::string::npos) << flag;
  if (find_on_path("nm").empty()) GTEST_SKIP() << "no nm to list the exports";
  ProcessResult nm = run_process({"nm", "-D", "--defined-only", r.output});
  ASSERT_TRUE(nm.ok()) << nm.err;
  EXPECT_NE(nm.out.find(" T solve\n"), std::string::npos) << nm.out;
  // No temporary left next to it; the build record holds the nvcc line (solve() is read with it).
  ProcessResult ls = run_process({"ls", d.path()});
  EXPECT_EQ(ls.out, "add.cu\nadd.so\nadd.so.kprof-build.json\n");
  auto rec = read_build_record(r.output, o.source);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->command, r.command);
  EXPECT_EQ(rec->arch, "sm_90");
}

TEST(Build, CompileErrorExitsOneWithNvccMessages) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  write(d / "bad.cu", "extern \"C\" void solve(float* x) { undeclared_thing(x); }\n");
  BuildOptions o;
  o.source = d / "bad.cu";
  o.arch = "sm_90";
  o.echo = false;
  try {
    build_kernel(o);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Failed);
    std::string m = e.what();
    EXPECT_NE(m.find("undeclared_thing"), std::string::npos) << m;  // nvcc's own message
    EXPECT_NE(m.find("bad.cu"), std::string::npos) << m;
    EXPECT_NE(e.hint().find("-arch=sm_90"), std::string::npos) << e.hint();
  }
  EXPECT_FALSE(path_exists(d / "bad.so"));
}

TEST(Build, MissingCutlassExitsTwoNamingTheVariable) {
  TempDir d;
  write(d / "k.cu", kAddKernel);
  ScopedEnv p("CUTLASS_PATH", d / "no-cutlass-here");
  BuildOptions o;
  o.source = d / "k.cu";
  o.impl = Implementation::Cutlass;
  o.arch = "sm_90";
  try {
    build_kernel(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("CUTLASS_PATH"), std::string::npos) << e.what();
  }
}

TEST(Build, CutlassHeadersAreOnTheNvccLine) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  // A minimal CUTLASS tree: enough to check that its include folders reach nvcc.
  write(d / "cutlass/include/cutlass/cutlass.h", "#pragma once\n#define KPROF_TEST_CUTLASS 1\n");
  write(d / "cutlass/include/cutlass/version.h",
        "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n#define CUTLASS_PATCH 0\n");
  write(d / "cutlass/tools/util/include/cutlass/util/helper.h", "#pragma once\n#define KPROF_TEST_UTIL 1\n");
  write(d / "k.cu",
        "#include <cutlass/cutlass.h>\n#include <cutlass/util/helper.h>\n"
        "#if !defined(NDEBUG) || !KPROF_TEST_CUTLASS || !KPROF_TEST_UTIL\n#error flags missing\n#endif\n"
        "extern \"C\" void solve(float* x, int n) { (void)x; (void)n; }\n");
  ScopedEnv p("CUTLASS_PATH", d / "cutlass");
  BuildOptions o;
  o.source = d / "k.cu";
  o.impl = Implementation::Cutlass;
  o.arch = "sm_90a";
  o.output = d / "out/k.so";
  o.echo = false;
  BuildResult r = build_kernel(o);
  EXPECT_TRUE(path_exists(d / "out/k.so"));
  EXPECT_NE(shell_join(r.command).find("--expt-relaxed-constexpr"), std::string::npos);
}

TEST(Build, PythonKernelIsNotBuilt) {
  TempDir d;
  write(d / "k.py", "def setup(**kw): pass\n");
  BuildOptions o;
  o.source = d / "k.py";
  o.impl = Implementation::Triton;
  o.arch = "sm_90";
  try {
    build_kernel(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
  }
}

TEST(BuildCli, ExitCodesThroughTheBinary) {
  TempDir d;
  write(d / "add.cu", kAddKernel);
  ProcessResult missing = run_kprof({"build", d / "nope.cu", "--arch", "sm_90"});
  EXPECT_EQ(missing.exit_code, 2) << missing.combined();
  ProcessResult bad_arch = run_kprof({"build", d / "add.cu", "--arch", "hopper"});
  EXPECT_EQ(bad_arch.exit_code, 2) << bad_arch.combined();
  if (cuda_unavailable_reason().empty()) return;  // with a GPU the default arch is the GPU's own
  ProcessResult no_arch = run_kprof({"build", d / "add.cu"});
  EXPECT_EQ(no_arch.exit_code, 2) << no_arch.combined();
  EXPECT_TRUE(contains(no_arch.err, "--arch")) << no_arch.err;
  EXPECT_TRUE(contains(no_arch.err, "no CUDA driver/GPU")) << no_arch.err;
}

TEST(BuildCli, BuildsAndPrintsTheNvccLine) {
  if (nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
  TempDir d;
  write(d / "add.cu", kAddKernel);
  ProcessResult r =
      run_kprof({"build", d / "add.cu", "--arch", "sm_90", "-o", d / "lib/add.so", "--", "-Xptxas", "-v"});
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_TRUE(contains(r.out, "-arch=sm_90 -Xptxas -v -o " + d / "lib/add.so")) << r.out;
  EXPECT_TRUE(contains(r.err, "registers")) << r.err;  // ptxas -v output passed through
  EXPECT_TRUE(path_exists(d / "lib/add.so"));
}
