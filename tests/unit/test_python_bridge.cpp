// The DLPack capsule kprof builds for PyTorch, checked on the CPU with numpy as the consumer
// (same ABI; torch reads it the same way on the GPU: tests/gpu/test_python_gpu.cpp). Skips when
// numpy is not installed for the embedded Python.
#include <gtest/gtest.h>

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "python/interpreter.hpp"
#include "python/py_internal.hpp"
#include "test_python_support.hpp"

using namespace kprof;

namespace {

// numpy.from_dlpack wants an object with __dlpack__/__dlpack_device__, not a bare capsule.
const char* kHolder = R"PY(
class CapsuleHolder:
    def __init__(self, capsule):
        self.capsule = capsule
    def __dlpack__(self, **kwargs):
        capsule, self.capsule = self.capsule, None
        return capsule
    def __dlpack_device__(self):
        return (1, 0)
)PY";

}  // namespace

TEST(PythonDlpack, CapsuleIsReadByNumpyWithoutACopy) {
  ensure_python();
  py::gil_scoped_acquire gil;
  py::module_ np;
  try {
    np = py::module_::import("numpy");
  } catch (const py::error_already_set&) {
    GTEST_SKIP() << "numpy is not installed for " << python_executable();
  }
  if (!py::hasattr(np, "from_dlpack")) GTEST_SKIP() << "numpy older than 1.22 has no from_dlpack";
  py::dict scope;
  py::exec(kHolder, scope);
  const size_t n = 37;
  for (DType dt : {DType::F32, DType::F64, DType::F16, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8,
                   DType::U16, DType::U32, DType::U64}) {
    SCOPED_TRACE(dtype_name(dt));
    std::vector<uint8_t> mem(n * dtype_size(dt));
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>((i * 29 + 5) & 0x3f);
    {
      py::object holder = scope["CapsuleHolder"](dlpack_capsule(mem.data(), n, dt, kDLCPU, 0));
      py::object arr = np.attr("from_dlpack")(holder);
      EXPECT_EQ(arr.attr("ctypes").attr("data").cast<uintptr_t>(), reinterpret_cast<uintptr_t>(mem.data()));
      EXPECT_EQ(py::str(arr.attr("dtype")).cast<std::string>(), dtype_name(dt));
      EXPECT_EQ(arr.attr("shape").cast<py::tuple>().size(), 1u);
      EXPECT_EQ(arr.attr("size").cast<size_t>(), n);
      std::string bytes = arr.attr("tobytes")().cast<py::bytes>();
      EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), mem);
    }  // numpy releases the capsule's metadata through its deleter here
  }
  // A capsule nobody consumed frees its metadata when collected (no crash, no double free).
  std::vector<float> unused(4);
  EXPECT_NO_THROW({ py::object cap = dlpack_capsule(unused.data(), 4, DType::F32, kDLCPU, 0); });
  py::module_::import("gc").attr("collect")();
}
