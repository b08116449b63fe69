// Usage and input errors are exit 2 with one clear message on ANY machine: kprof checks what needs
// no GPU (file type, signature, dimensions, --size, the .so) before it touches the GPU.
#include <gtest/gtest.h>

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
  EXPECT_NE(r.err.find("nvcc -O3 -shared"), std::string::npos) << r.err;
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
  auto r = run_kprof_cli({"run", kVadd, std::string(KPROF_SOURCE_DIR) + "/README.md", "--ref", kRef, "--N=8", "--build", "-o",
                  "/tmp/kprof_cli_usage_run"});
  expect_usage(r, "is not a CUDA source file");
}

TEST(CliUsage, NoCommandPrintsHelpAndExitsTwo) {
  auto r = run_kprof_cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("Subcommands:"), std::string::npos) << r.out;
}
