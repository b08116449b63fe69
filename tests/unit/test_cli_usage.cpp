// Usage and input errors are exit 2 with one clear message on ANY machine: kprof checks what needs
// no GPU (file type, signature, dimensions, --size, the .so) before it touches the GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/fs.hpp"
#include "core/subprocess.hpp"

using namespace kprof;

namespace {

const std::string kVadd = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu";
const std::string kRef = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/ref.py";

ProcessResult run_kprof_cli(std::vector<std::string> args) {
  args.insert(args.begin(), KPROF_BINARY);
  ProcessOptions o;
  o.timeout_s = 60;
  o.env["KPROF_COLOR"] = "never";
  return run_process(args, o);
}

void expect_usage(const ProcessResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;
}

}  // namespace

TEST(CliUsage, DimensionWithASpaceSaysToUseEquals) {
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", kRef, "--N", "1024"}), "write --N=1024");
}

TEST(CliUsage, ANonCudaFileIsNotTakenForAKernel) {
  expect_usage(run_kprof_cli({"check", std::string(KPROF_SOURCE_DIR) + "/README.md", "--ref", kRef, "--N=8"}),
               "is not a CUDA source file");
}

TEST(CliUsage, MissingLibraryIsAnInputErrorWithTheBuildLine) {
  auto r = run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--so", "/nonexistent/vadd.so"});
  expect_usage(r, "kernel library /nonexistent/vadd.so not found");
  EXPECT_NE(r.err.find("nvcc -O3 -std=c++17 -shared"), std::string::npos) << r.err;
}

TEST(CliUsage, MissingAndRepeatedDimensions) {
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", kRef, "--so", "/nonexistent/vadd.so"}), "missing dimension --N");
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=1", "--N=2"}), "given twice");
}

TEST(CliUsage, SizeTakesOneValueSoTheKernelPathIsNotSwallowed) {
  auto r = run_kprof_cli({"profile", "--size", "A=N", kVadd, "--N=8", "--so", "/nonexistent/vadd.so"});
  expect_usage(r, "kernel library");  // the kernel was parsed as the positional, then the .so is missing
}

TEST(CliUsage, NegativeSeedIsRejected) {
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--seed", "-1"}), "non-negative");
}

TEST(CliUsage, RunValidatesEveryVersionBeforeTheEnvironment) {
  auto r = run_kprof_cli({"run", kVadd, std::string(KPROF_SOURCE_DIR) + "/README.md", "--ref", kRef, "--N=8", "--build",
                          "-o", "/tmp/kprof_cli_usage_run"});
  expect_usage(r, "is not a CUDA source file");
  // The builds start beside the validation, but their lines wait: the input error is the one message.
  EXPECT_EQ(r.err.find("build:"), std::string::npos) << r.err;
}

TEST(CliUsage, NoCommandPrintsHelpAndExitsTwo) {
  auto r = run_kprof_cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("Subcommands:"), std::string::npos) << r.out;
}

TEST(CliUsage, AnOptionOfAnotherCommandIsNotTakenForADimension) {
  // `--warmup` belongs to profile and run; given to check it would otherwise size the buffers.
  auto r = run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--warmup=5"});
  expect_usage(r, "--warmup is an option of `kprof profile` and `kprof run`, not of `kprof check`");
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--iters", "5"}),
               "--iters is an option of `kprof profile` and `kprof run`");
}

TEST(CliUsage, AMisspeltOptionGetsTheNearestName) {
  expect_usage(run_kprof_cli({"profile", kVadd, "--N=8", "--ncu_timeout=5"}), "did you mean --ncu-timeout?");
  expect_usage(run_kprof_cli({"profile", kVadd, "--N=8", "--ncu-timout=5"}), "did you mean --ncu-timeout?");
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--iter=5"}), "did you mean --iters?");
  // A value of the wrong type names the option, the value and what it must be.
  expect_usage(run_kprof_cli({"profile", kVadd, "--N=8", "--iters", "2.5"}), "--iters: must be an integer, got '2.5'");
  // The start of exactly one option's name: that option (found by a new-user trial).
  expect_usage(run_kprof_cli({"profile", kVadd, "--N=8", "--time-budget", "100"}), "did you mean --time-budget-ms?");
  expect_usage(run_kprof_cli({"profile", kVadd, "--N=8", "--time-budget-ms", "0"}), "--time-budget-ms");
  // The next word is not shown as its value when it is an option itself.
  auto swallowed = run_kprof_cli({"profile", kVadd, "--N=8", "--bulid", "-o", "/tmp/kprof_cli_usage_o"});
  expect_usage(swallowed, "'--bulid': did you mean --build?");
  // A value that is not a number: the hint does not repeat what was typed.
  auto typed = run_kprof_cli({"profile", kVadd, "--N=8", "--metrcs=full"});
  expect_usage(typed, "did you mean --metrics?");
  EXPECT_EQ(typed.err.find("give it as --metrcs=VALUE"), std::string::npos) << typed.err;
  EXPECT_NE(typed.err.find("its value is a number (--metrcs=8)"), std::string::npos) << typed.err;
}

TEST(CliUsage, AnUnknownShortDimensionIsANoteNotAnError) {
  // Dimensions may size buffers without being solve() parameters (one int dimension: that many
  // elements): kprof says so and goes on (here to the missing .so, the next input error).
  auto r = run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--Q=5", "--so", "/nonexistent/vadd.so"});
  expect_usage(r, "kernel library /nonexistent/vadd.so not found");
  EXPECT_NE(r.err.find("note: --Q=5 is not a parameter of solve("), std::string::npos) << r.err;
}

TEST(CliUsage, RangeErrorsArePlain) {
  auto r = run_kprof_cli({"check", kVadd, "--ref", kRef, "--N=8", "--timeout=0"});
  expect_usage(r, "--timeout: must be greater than 0, got 0");
  EXPECT_EQ(r.err.find("179769"), std::string::npos) << r.err;  // no DBL_MAX written out
}

TEST(CliUsage, ABrokenRefPyIsAnInputErrorBeforeTheGpu) {
  const std::string broken = std::string(KPROF_EXAMPLES_DIR) + "/broken/ref_no_reference.py";
  expect_usage(run_kprof_cli({"check", kVadd, "--ref", broken, "--N=8", "--build"}), "defines no function `reference`");
  auto r = run_kprof_cli({"run", kVadd, "--ref", broken, "--N=8", "--build"});
  expect_usage(r, "defines no function `reference`");
  EXPECT_EQ(r.err.find("build:"), std::string::npos) << r.err;
}

TEST(CliUsage, UnknownCommandAndSeveralKernelsForCheck) {
  expect_usage(run_kprof_cli({"frobnicate"}), "unknown command 'frobnicate'");
  auto r = run_kprof_cli({"check", kVadd, kVadd, "--ref", kRef, "--N=8"});
  expect_usage(r, "`kprof check` takes one kernel file; received 2");
  EXPECT_NE(r.err.find("kprof run"), std::string::npos) << r.err;
}

TEST(CliUsage, RunReportsTheFirstVersionsErrorWhenSeveralAreWrong) {
  // The .cu versions are checked at once; the error shown is still the first one's.
  // Copies without their .so (a GPU machine may have built the examples' own).
  std::string ex = std::string(KPROF_SOURCE_DIR) + "/examples/attention/cuda/";
  std::string dir = "/tmp/kprof_cli_usage_run2_src/";
  make_dirs(dir);
  for (const char* v : {"v3.cu", "v4.cu"}) write_file_atomic(dir + v, read_file(ex + v));
  std::remove((dir + "v3.so").c_str());
  std::remove((dir + "v4.so").c_str());
  auto r = run_kprof_cli({"run", dir + "v3.cu", dir + "v4.cu", "--ref", ex + "ref.py", "--N=8", "--d_model=8",
                          "--heads=1", "--size", "Q=N*d_model", "--size", "K=N*d_model", "--size", "V=N*d_model",
                          "--size", "output=N*d_model", "-o", "/tmp/kprof_cli_usage_run2"});
  expect_usage(r, "v3.so not found");
  EXPECT_EQ(r.err.find("v4.so not found"), std::string::npos) << r.err;
}
