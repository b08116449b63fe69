// The reference's FLOPs counted by PyTorch's FlopCounterMode (stages/verify/flop_count.hpp): the
// Python side on CPU tensors (skipped without torch), the per-call registry and the work model of
// a profile that uses it (flows/assess_context.hpp call_work). No GPU.
#include <gtest/gtest.h>

#include <pybind11/eval.h>

#include "core/error.hpp"
#include "flows/assess_context.hpp"
#include "python/interpreter.hpp"
#include "stages/verify/flop_count.hpp"
#include "stages/verify/flop_count_py.hpp"
#include "stages/verify/reference.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// Imports torch in the embedded Python; "" when it imports, else why not.
std::string torch_missing() {
  ensure_python();
  py::gil_scoped_acquire gil;
  try {
    py::module_::import("torch.utils.flop_counter");
    return "";
  } catch (const py::error_already_set& e) {
    return std::string("PyTorch (torch.utils.flop_counter) does not import in kprof's Python: ") + e.what();
  }
}

/// A Python function defined by `src` (named `f`) in a fresh namespace.
py::object python_function(const std::string& src) {
  py::dict ns;
  py::exec(src, ns);
  return ns["f"];
}

/// A 4096^3 GEMM's buffers and N as a solve() kernel (no device memory: nothing is called).
class GemmKernel final : public KernelInstance {
 public:
  Implementation implementation() const override { return Implementation::CudaCpp; }
  std::string signature() const override { return "solve(const float* A, const float* B, float* C, int N)"; }
  void prepare(uint64_t) override {}
  std::vector<BufferView> buffers() const override {
    return {{"A", DType::F32, 4096u * 4096u, nullptr, false, {}, false},
            {"B", DType::F32, 4096u * 4096u, nullptr, false, {}, false},
            {"C", DType::F32, 4096u * 4096u, nullptr, true, {}, false}};
  }
  std::vector<ScalarArg> scalars() const override { return {{"N", 4096, true}}; }
  void call() override {}
};

}  // namespace

TEST(FlopCount, AMatmulUnderFlopCounterModeCountsTwoFlopsPerMultiplyAdd) {
  if (auto why = torch_missing(); !why.empty()) GTEST_SKIP() << why;
  py::gil_scoped_acquire gil;
  py::object f = python_function(
      "import torch\n"
      "def f(A, B, C):\n"
      "    C.copy_(torch.mm(A, B) + 1.0)\n");
  py::object torch = py::module_::import("torch");
  py::dict kwargs;
  kwargs["A"] = torch.attr("ones")(64, 32);
  kwargs["B"] = torch.attr("ones")(32, 16);
  kwargs["C"] = torch.attr("zeros")(64, 16);
  CountedFlops c;
  py::object ret = call_counting_flops(f, kwargs, c);
  EXPECT_TRUE(ret.is_none());
  ASSERT_TRUE(c.total) << c.why;
  EXPECT_DOUBLE_EQ(*c.total, 2.0 * 64 * 32 * 16);  // the add counts nothing
  ASSERT_FALSE(c.by_op.empty());
  EXPECT_EQ(c.by_op[0].first, "aten.mm");
  EXPECT_DOUBLE_EQ(c.by_op[0].second, *c.total);
  EXPECT_DOUBLE_EQ(kwargs["C"].attr("sum")().cast<double>(), 64.0 * 16 * 33);  // it ran
  EXPECT_NE(counted_flops_how(c).find("counted by PyTorch's FlopCounterMode while reference() ran: 6.554e+04 FLOPs "
                                      "(aten.mm 6.554e+04)"),
            std::string::npos)
      << counted_flops_how(c);
}

TEST(FlopCount, AReferenceWithoutACountedOpCountsZero) {
  if (auto why = torch_missing(); !why.empty()) GTEST_SKIP() << why;
  py::gil_scoped_acquire gil;
  py::object f = python_function("def f(A, C):\n    C.copy_(A * 2.0 + 1.0)\n");
  py::object torch = py::module_::import("torch");
  py::dict kwargs;
  kwargs["A"] = torch.attr("ones")(8);
  kwargs["C"] = torch.attr("zeros")(8);
  CountedFlops c;
  call_counting_flops(f, kwargs, c);
  ASSERT_TRUE(c.total) << c.why;
  EXPECT_DOUBLE_EQ(*c.total, 0.0);
  EXPECT_NE(counted_flops_how(c).find("counted 0 FLOPs"), std::string::npos) << counted_flops_how(c);
}

TEST(FlopCount, AnExceptionInsideTheReferencePropagates) {
  if (auto why = torch_missing(); !why.empty()) GTEST_SKIP() << why;
  py::gil_scoped_acquire gil;
  py::object f = python_function("def f(**kw):\n    raise ValueError('mine')\n");
  CountedFlops c;
  EXPECT_THROW(call_counting_flops(f, py::dict(), c), py::error_already_set);
}

TEST(FlopCount, WithoutTorchLoadedTheCallRunsUncountedAndSaysWhy) {
  ensure_python();
  py::gil_scoped_acquire gil;
  if (py::module_::import("sys").attr("modules").contains("torch"))
    GTEST_SKIP() << "torch is already loaded in this process (another test imported it)";
  py::object f = python_function("def f(x):\n    return x + 1\n");
  py::dict kwargs;
  kwargs["x"] = 41;
  CountedFlops c;
  EXPECT_EQ(call_counting_flops(f, kwargs, c).cast<int>(), 42);
  EXPECT_FALSE(c.total);
  EXPECT_EQ(c.why, "torch is not loaded");
  EXPECT_EQ(counted_flops_how(c), "FLOPs not counted: torch is not loaded");
  EXPECT_FALSE(py::module_::import("sys").attr("modules").contains("torch"));  // never imported for it
}

TEST(FlopCount, TheRegistryKeepsOneCountPerReferenceAndCall) {
  TempDir dir;
  write(dir / "ref.py", "def reference(**kw):\n    pass\n");
  GemmKernel g;
  std::string key = reference_call_key(g.buffers(), g.scalars());
  EXPECT_NE(key, reference_call_key(g.buffers(), {{"N", 2048, true}}));
  EXPECT_FALSE(counted_flops(dir / "ref.py", key));
  record_counted_flops(dir / "ref.py", key, CountedFlops{1.0, {{"aten.mm", 1.0}}, ""});
  record_counted_flops(dir.path() + "/./ref.py", key, CountedFlops{2.0, {{"aten.mm", 2.0}}, ""});  // same file
  auto c = counted_flops(dir / "ref.py", key);
  ASSERT_TRUE(c && c->total);
  EXPECT_DOUBLE_EQ(*c->total, 2.0);
  EXPECT_FALSE(counted_flops(dir / "other.py", key));
}

TEST(FlopCount, CallWorkUsesTheCountWhenRefPyDeclaresNoFlops) {
  TempDir dir;
  write(dir / "ref.py", "def reference(A, B, C, **kw):\n    C.copy_(A @ B)\n");
  GemmKernel g;
  KernelSpec spec;
  spec.dims.set("N", "4096");
  std::vector<std::string> notes;
  WorkModel none = call_work(g, spec, dir / "ref.py", notes);
  EXPECT_FALSE(none.flops);  // the reference did not run in this process
  EXPECT_EQ(none.output_dtype, DType::F32);
  const double flops = 2.0 * 4096 * 4096 * 4096;
  record_counted_flops(dir / "ref.py", reference_call_key(g.buffers(), g.scalars()),
                       CountedFlops{flops, {{"aten.mm", flops}}, ""});
  WorkModel w = call_work(g, spec, dir / "ref.py", notes);
  ASSERT_TRUE(w.flops);
  EXPECT_DOUBLE_EQ(*w.flops, flops);
  EXPECT_EQ(w.flops_source, FlopSource::Counted);
  EXPECT_NE(w.flops_how.find("counted by PyTorch's FlopCounterMode while reference() ran: 1.374e+11 FLOPs (aten.mm"),
            std::string::npos)
      << w.flops_how;
  EXPECT_TRUE(notes.empty());
}

TEST(FlopCount, ADeclaredFlopsWinsOverTheCount) {
  TempDir dir;
  write(dir / "ref.py", "def reference(**kw):\n    pass\n\ndef flops(N, **kw):\n    return 7\n");
  GemmKernel g;
  KernelSpec spec;
  spec.dims.set("N", "4096");
  record_counted_flops(dir / "ref.py", reference_call_key(g.buffers(), g.scalars()), CountedFlops{1e9, {}, ""});
  std::vector<std::string> notes;
  WorkModel w = call_work(g, spec, dir / "ref.py", notes);
  ASSERT_TRUE(w.flops);
  EXPECT_DOUBLE_EQ(*w.flops, 7.0);
  EXPECT_EQ(w.flops_source, FlopSource::Declared);
}

TEST(FlopCount, ReferenceCallRecordsItsCountOncePerCall) {
  if (auto why = torch_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  write(dir / "ref.py",
        "import torch\ncalls = []\n"
        "def reference(N, **kw):\n"
        "    a = torch.ones(N, N)\n"
        "    calls.append(float(torch.mm(a, a).sum()))\n");
  ReferenceModule ref = ReferenceModule::load(dir / "ref.py");
  std::vector<ScalarArg> scalars = {{"N", 8, true}};
  ReferenceCall out = ref.call({}, scalars);
  auto c = counted_flops(dir / "ref.py", reference_call_key({}, scalars));
  ASSERT_TRUE(c && c->total) << (c ? c->why : "no count");
  EXPECT_DOUBLE_EQ(*c->total, 2.0 * 8 * 8 * 8);
  EXPECT_TRUE(out.notes.empty());
  record_counted_flops(dir / "ref.py", reference_call_key({}, scalars), CountedFlops{5.0, {}, ""});
  ref.call({}, scalars);  // the same call again runs without the mode: the record stays
  EXPECT_DOUBLE_EQ(*counted_flops(dir / "ref.py", reference_call_key({}, scalars))->total, 5.0);
}

TEST(FlopCount, AReferenceThatRaisesOnlyUnderTheCounterRunsAgainWithoutIt) {
  if (auto why = torch_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  write(dir / "ref.py",
        "import torch\nfrom torch.utils._python_dispatch import _get_current_dispatch_mode\n"
        "def reference(N, **kw):\n"
        "    if _get_current_dispatch_mode() is not None:\n"
        "        raise RuntimeError('no modes here')\n"
        "    torch.mm(torch.ones(N, N), torch.ones(N, N))\n");
  ReferenceModule ref = ReferenceModule::load(dir / "ref.py");
  std::vector<ScalarArg> scalars = {{"N", 4, true}};
  ReferenceCall out = ref.call({}, scalars);
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("raised under PyTorch's FlopCounterMode"), std::string::npos) << out.notes[0];
  EXPECT_NE(out.notes[0].find("no modes here"), std::string::npos) << out.notes[0];
  auto c = counted_flops(dir / "ref.py", reference_call_key({}, scalars));
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->total);
  EXPECT_TRUE(ref.call({}, {{"N", 5, true}}).notes.empty());  // counting stopped for this module
}

TEST(FlopCount, AReferenceThatRaisesAnywayReportsItsOwnError) {
  if (auto why = torch_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  write(dir / "ref.py", "import torch\ndef reference(N, **kw):\n    raise ValueError('broken reference')\n");
  ReferenceModule ref = ReferenceModule::load(dir / "ref.py");
  try {
    ref.call({}, {{"N", 4, true}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken reference"), std::string::npos) << e.what();
  }
}
