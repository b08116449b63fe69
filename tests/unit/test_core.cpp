// Core helpers: number parsing as ncu prints it, dimensions, size expressions, atomic writes,
// subprocess time limits, half/bfloat16 conversion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <unistd.h>

#include "device/cuda.hpp"
#include "core/dims.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/implementation.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"

using namespace kprof;

TEST(ParseNumber, ThousandsSeparatorsAndMissing) {
  EXPECT_DOUBLE_EQ(*parse_number("524,288"), 524288.0);
  EXPECT_DOUBLE_EQ(*parse_number(" 1,234.5 "), 1234.5);
  EXPECT_FALSE(parse_number("n/a").has_value());
  EXPECT_FALSE(parse_number("").has_value());
  EXPECT_FALSE(parse_number("nan").has_value());
  EXPECT_FALSE(parse_number("12abc").has_value());
}

TEST(Dims, ParsesNameValueWords) {
  Dims d;
  parse_dim_args({"--N=1024", "--alpha=-0.5"}, d);
  EXPECT_TRUE(d.get("N").is_int);
  EXPECT_EQ(d.get("N").value, 1024);
  EXPECT_FALSE(d.get("alpha").is_int);
  EXPECT_DOUBLE_EQ(d.get("alpha").value, -0.5);
  EXPECT_EQ(d.to_string(), "N=1024 alpha=-0.5");
}

TEST(Dims, RejectsWordsWithoutEquals) {
  Dims d;
  try {
    parse_dim_args({"--N", "1024"}, d);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.hint()).find("--N=1024"), std::string::npos);
  }
}

TEST(Dims, MissingDimensionNamesTheFlag) {
  Dims d;
  try {
    d.get("K");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--K="), std::string::npos);
    EXPECT_EQ(e.code(), ExitCode::Usage);
  }
}

TEST(IntExpr, EvaluatesProductsAndParentheses) {
  std::map<std::string, int64_t> v{{"M", 3}, {"K", 5}};
  EXPECT_EQ(eval_int_expr("M*K", v), 15);
  EXPECT_EQ(eval_int_expr("(M+1)*K - 2", v), 18);
  EXPECT_EQ(eval_int_expr("K/2", v), 2);
  EXPECT_THROW(eval_int_expr("M*Q", v), Error);
  EXPECT_THROW(eval_int_expr("M*", v), Error);
}

TEST(AtomicWrite, WritesWholeFileAndCreatesFolders) {
  std::string dir = "/tmp/kprof_test_" + std::to_string(::getpid());
  std::string path = dir + "/a/b/report.md";
  write_file_atomic(path, "hello");
  EXPECT_EQ(read_file(path), "hello");
  write_file_atomic(path, "second");
  EXPECT_EQ(read_file(path), "second");
  EXPECT_FALSE(path_exists(path + ".tmp." + std::to_string(::getpid())));
  std::system(("rm -rf " + dir).c_str());
}

TEST(Subprocess, CapturesOutputAndExitCode) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.timed_out);
}

TEST(Subprocess, KillsAHangingChildAtTheTimeLimit) {
  ProcessOptions o;
  o.timeout_s = 0.5;
  auto r = run_process({"sh", "-c", "sleep 30"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_s, 5.0);
}

TEST(Subprocess, ReportsAMissingProgram) {
  auto r = run_process({"kprof-no-such-program-xyz"});
  EXPECT_TRUE(r.not_found);
  EXPECT_FALSE(r.ok());
}

TEST(Subprocess, StreamsLinesAsTheyArrive) {
  std::vector<std::string> lines;
  ProcessOptions o;
  o.on_line = [&](const std::string& l, bool) { lines.push_back(l); };
  run_process({"sh", "-c", "printf 'a\\nb\\n'; printf 'c'"}, o);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "c");
}

TEST(DType, HalfAndBfloat16RoundTrip) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits_to_float(0xc000), -2.0f);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(1e6f), 0x7c00);  // overflow -> inf
  EXPECT_NEAR(half_bits_to_float(float_to_half_bits(0.1f)), 0.1f, 1e-4);
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits_to_float(0x3f80), 1.0f);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
}

TEST(DisplayKernelName, ShortensTemplatesAndParameters) {
  EXPECT_EQ(display_kernel_name("void Kernel<Gemm<MmaMultistage<GemmShape<128, 256, 64>>>>(Params)"), "Kernel<...>");
  EXPECT_EQ(display_kernel_name("k_copy(const float4 *, float4 *, int)"), "k_copy");
  EXPECT_EQ(display_kernel_name("matmul_kernel"), "matmul_kernel");
  EXPECT_EQ(display_kernel_name(std::string(100, 'a'), 10), "aaaaaaa...");
}

TEST(Implementation, DefaultsAndMismatches) {
  EXPECT_EQ(resolve_implementation("", "k.py"), Implementation::Triton);
  EXPECT_EQ(resolve_implementation("", "k.cu"), Implementation::CudaCpp);
  EXPECT_EQ(resolve_implementation("cute-dsl", "k.py"), Implementation::CuteDsl);
  EXPECT_THROW(resolve_implementation("triton", "k.cu"), Error);
  EXPECT_THROW(resolve_implementation("opencl", "k.cu"), Error);
}

TEST(Implementation, SharedPythonPackagesStartWithTorch) {
  EXPECT_EQ(shared_python_modules(Implementation::Triton), (std::vector<std::string>{"torch", "triton"}));
  EXPECT_EQ(shared_python_modules(Implementation::CuteDsl), (std::vector<std::string>{"torch", "cutlass.cute"}));
  EXPECT_TRUE(shared_python_modules(Implementation::CudaCpp).empty());
  EXPECT_TRUE(shared_python_modules(Implementation::Cutlass).empty());
}

TEST(OneLineSummary, FirstLinePlusTheFirstErrorLine) {
  const std::string nvcc =
      "nvcc failed to compile k.cu (exit 2):\n"
      "k.cu(7): warning: something harmless\n"
      "k.cu(8): error: expected a \";\"\n"
      "k.cu(9): error: a second error\n";
  EXPECT_EQ(one_line_summary(nvcc), "nvcc failed to compile k.cu (exit 2): k.cu(8): error: expected a \";\"");
  EXPECT_EQ(one_line_summary("single line"), "single line");
  EXPECT_EQ(one_line_summary("no error here\njust more text"), "no error here");
  std::string cut = one_line_summary(std::string(400, 'x'), 50);
  EXPECT_EQ(cut.size(), 50u);
  EXPECT_EQ(cut.substr(47), "...");
}

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("--iter", "--iters"), 1u);
  EXPECT_EQ(edit_distance("--ncu-timout", "--ncu-timeout"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(CudaAvailability, WithoutTheDriverLibraryTheReasonSaysSo) {
  if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(h);
    GTEST_SKIP() << "libcuda.so.1 is installed here";
  }
  EXPECT_NE(cuda_unavailable_reason().find("the NVIDIA driver library (libcuda.so.1) is not installed"),
            std::string::npos)
      << cuda_unavailable_reason();
}
