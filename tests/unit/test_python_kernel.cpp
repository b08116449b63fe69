// Python kernel modules (setup/run_kernel): loading and the validation of what setup returns that
// needs neither PyTorch nor a GPU (structural checks run before any torch use).
#include <gtest/gtest.h>

#include "core/dims.hpp"
#include "core/error.hpp"
#include "kernel/py_kernel.hpp"
#include "test_python_support.hpp"

using namespace kprof;
using namespace kprof_test;

namespace {

Dims dims_of(const std::vector<std::string>& words) {
  Dims d;
  parse_dim_args(words, d);
  return d;
}

}  // namespace

TEST(PyKernel, RejectsACudaImplementation) {
  Error e = error_of([] { load_py_kernel(py_data("kernel_bad_setups.py"), Implementation::CudaCpp, Dims()); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "cuda-cpp is not a Python implementation");
}

TEST(PyKernel, MissingRunKernelIsNamed) {
  Error e = error_of([] { load_py_kernel(py_data("kernel_no_run_kernel.py"), Implementation::Triton, Dims()); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "defines no function `run_kernel`");
  EXPECT_HAS(e.hint(), "setup(**kwargs) and run_kernel(**kwargs)");
}

TEST(PyKernel, SetupThatIsNotCallableIsNamed) {
  Error e = error_of([] { load_py_kernel(py_data("kernel_setup_not_callable.py"), Implementation::CuteDsl, Dims()); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "`setup` is a dict, not a function");
  EXPECT_HAS(e.hint(), "cute-dsl");
}

TEST(PyKernel, SyntaxErrorReportsFileAndLine) {
  std::string path = py_data("kernel_syntax_error.py");
  Error e = error_of([&] { load_py_kernel(path, Implementation::Triton, Dims()); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "kernel_syntax_error.py:" + std::to_string(line_of(path, "kprof-test-marker: syntax")));
  EXPECT_HAS(e.what(), "SyntaxError");
}

struct BadSetupCase {
  int which;                       ///< the `case` dimension kernel_bad_setups.py switches on
  std::vector<std::string> parts;  ///< what the message must contain
};

void PrintTo(const BadSetupCase& c, std::ostream* os) { *os << "case " << c.which; }

class PyKernelBadSetup : public ::testing::TestWithParam<BadSetupCase> {};

TEST_P(PyKernelBadSetup, IsAUsageErrorNamingSetupAndTheKey) {
  const BadSetupCase& c = GetParam();
  auto kernel = load_py_kernel(py_data("kernel_bad_setups.py"), Implementation::Triton,
                               dims_of({"--case=" + std::to_string(c.which)}));
  Error e = error_of([&] { kernel->prepare(1); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "kernel_bad_setups.py: setup ");
  for (const std::string& p : c.parts) EXPECT_HAS(e.what(), p);
  EXPECT_HAS(e.hint(), "\"outputs\"");
  EXPECT_TRUE(kernel->buffers().empty());
  EXPECT_TRUE(kernel->scalars().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PyKernelBadSetup,
    ::testing::Values(BadSetupCase{0, {"returned a list, expected a dict"}},
                      BadSetupCase{1, {"without the key \"inputs\"", "its keys: outputs"}},
                      BadSetupCase{2, {"without the key \"outputs\"", "its keys: inputs"}},
                      BadSetupCase{3, {"returned \"inputs\" as a list, expected a dict"}},
                      BadSetupCase{4, {"returned \"outputs\" as a str, expected a list"}},
                      BadSetupCase{5, {"output 'c'", "\"inputs\" has no such key (its keys: a, b)"}},
                      BadSetupCase{6, {"returned output 'out' as an int, not a torch tensor"}},
                      BadSetupCase{7, {"empty \"outputs\""}}, BadSetupCase{8, {"output 'out' twice"}},
                      BadSetupCase{9, {"the key 1 (an int); names must be str"}},
                      BadSetupCase{10, {"the entry 7 (an int)"}}),
    [](const ::testing::TestParamInfo<BadSetupCase>& info) { return "case" + std::to_string(info.param.which); });

TEST(PyKernel, ExceptionInSetupShowsTheLine) {
  std::string path = py_data("kernel_setup_raises.py");
  auto kernel = load_py_kernel(path, Implementation::Triton, dims_of({"--N=8"}));
  Error e = error_of([&] { kernel->prepare(3); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "setup raised an exception: kernel_setup_raises.py:" +
                           std::to_string(line_of(path, "kprof-test-marker: setup raises")) + " in setup");
  EXPECT_HAS(e.what(), "IndexError: list index out of range");
  EXPECT_HAS(e.what(), "`return sizes[seed + 5]");
}

TEST(PyKernel, UnexpectedDimensionGetsAHint) {
  auto kernel = load_py_kernel(py_data("kernel_setup_strict.py"), Implementation::Triton, dims_of({"--N=8", "--D=4"}));
  Error e = error_of([&] { kernel->prepare(0); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "unexpected keyword argument 'D'");
  EXPECT_HAS(e.hint(), "**kwargs");
}

TEST(PyKernel, DimensionsKeepTheirTypes) {
  // case=6 ends in "output 'out' as an int": reaching it proves `case` arrived as an int (a
  // float 6.0 would fall through to "unknown case").
  auto kernel = load_py_kernel(py_data("kernel_bad_setups.py"), Implementation::Triton, dims_of({"--case=6"}));
  EXPECT_HAS(error_of([&] { kernel->prepare(0); }).what(), "as an int, not a torch tensor");
  auto as_float = load_py_kernel(py_data("kernel_bad_setups.py"), Implementation::Triton, dims_of({"--case=6.5"}));
  EXPECT_HAS(error_of([&] { as_float->prepare(0); }).what(), "ValueError: unknown case");
}

TEST(PyKernel, CallBeforePrepareIsAnError) {
  auto kernel = load_py_kernel(py_data("kernel_bad_setups.py"), Implementation::Triton, dims_of({"--case=0"}));
  EXPECT_EQ(kernel->implementation(), Implementation::Triton);
  EXPECT_HAS(kernel->signature(), "case=0");
  Error e = error_of([&] { kernel->call(); });
  EXPECT_HAS(e.what(), "before prepare()");
}
