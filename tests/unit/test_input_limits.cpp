// Limits on what the user types: checked 64-bit arithmetic, length and nesting of --size
// expressions, output folders that cannot be used, nvcc flags after `--`, stdout to a file.
#include <gtest/gtest.h>

#include <unistd.h>

#include "cli/kernel_options.hpp"
#include "core/dims.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"

using namespace kprof;

namespace {

std::string eval_error(const std::string& expr, const std::map<std::string, int64_t>& vars = {{"N", 100000}}) {
  try {
    eval_int_expr(expr, vars);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << expr.substr(0, 60);
  return "";
}

}  // namespace

TEST(InputLimits, OverflowIsReportedNeverWrapped) {
  EXPECT_NE(eval_error("N*N*N*N").find("overflows 64-bit integers at 1000000000000000 * 100000"), std::string::npos);
  EXPECT_NE(eval_error("9223372036854775807+1").find("overflows"), std::string::npos);
  EXPECT_NE(eval_error("0-9223372036854775807-2").find("overflows"), std::string::npos);
  EXPECT_NE(eval_error("-(0-9223372036854775807-1)").find("overflows"), std::string::npos);
  EXPECT_NE(eval_error("(0-9223372036854775807-1)/(0-1)").find("overflows"), std::string::npos);
  EXPECT_NE(eval_error("99999999999999999999").find("does not fit in 64 bits"), std::string::npos);
  EXPECT_EQ(eval_int_expr("9223372036854775807", {}), INT64_MAX);
  EXPECT_EQ(eval_int_expr("N*N*N", {{"N", 100000}}), 1000000000000000LL);
}

TEST(InputLimits, LengthAndNestingAreBoundedWithoutACrash) {
  EXPECT_NE(eval_error(std::string(40000, '(') + "1" + std::string(40000, ')')).find("longer than kprof reads"),
            std::string::npos);
  EXPECT_NE(eval_error(std::string(100, '(') + "1" + std::string(100, ')')).find("nested more than 64"),
            std::string::npos);
  EXPECT_NE(eval_error(std::string(100, '-') + "1").find("nested more than 64"), std::string::npos);
  EXPECT_EQ(eval_int_expr(std::string(64, '(') + "7" + std::string(64, ')'), {}), 7);
  std::string sum = "1";
  while (sum.size() + 2 <= kMaxExprLength) sum += "+1";
  EXPECT_EQ(eval_int_expr(sum, {}), static_cast<int64_t>(sum.size() / 2 + 1));
}

TEST(InputLimits, HugeIntegerDimensionsSaturateForSizing) {
  Dims d;
  d.set("N", "99999999999999999999");
  EXPECT_EQ(d.ints().at("N"), INT64_MAX);
  EXPECT_NE(eval_error("N*2", d.ints()).find("overflows"), std::string::npos);
}

TEST(InputLimits, OutputFolderProblems) {
  const std::string dir = std::string(::testing::TempDir()) + "/kprof_limits_" + std::to_string(::getpid());
  make_dirs(dir);
  write_file_atomic(dir + "/file", "x");
  EXPECT_EQ(output_dir_problem(dir), "");
  EXPECT_EQ(output_dir_problem(dir + "/new/deeper"), "");
  EXPECT_NE(output_dir_problem(dir + "/file").find("is a file, not a folder"), std::string::npos);
  EXPECT_NE(output_dir_problem(dir + "/file/sub").find("cannot be created"), std::string::npos);
}

TEST(InputLimits, NvccFlagsAfterDashDashBecomeHiddenOptions) {
  EXPECT_EQ(rewrite_nvcc_flags({"kprof", "check", "k.cu", "--N=8", "--", "-DX=1", "-I", "inc"}),
            (std::vector<std::string>{"kprof", "check", "k.cu", "--N=8", "--nvcc-flag=-DX=1", "--nvcc-flag=-I",
                                      "--nvcc-flag=inc"}));
  // kprof build takes `--` itself; other commands are left alone.
  EXPECT_EQ(rewrite_nvcc_flags({"kprof", "build", "k.cu", "--", "-DX"}),
            (std::vector<std::string>{"kprof", "build", "k.cu", "--", "-DX"}));
}

TEST(InputLimits, StdoutCanGoToAFile) {
  const std::string file = std::string(::testing::TempDir()) + "/kprof_limits_out_" + std::to_string(::getpid());
  ProcessOptions o;
  o.stdout_file = file;
  ProcessResult r = run_process({"sh", "-c", "echo to-file; echo to-err >&2"}, o);
  EXPECT_TRUE(r.ok()) << r.combined();
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "to-err\n");
  EXPECT_EQ(read_file(file), "to-file\n");
}
