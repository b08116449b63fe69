// Embedded Python with PyTorch on the GPU: references over kprof-owned device memory (no copy),
// dtype round trips, the reference's return forms, and a PyTorch-only setup/run_kernel module.
// Skips with the reason when there is no GPU or `import torch` fails.
#include <gtest/gtest.h>

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "device/host_array.hpp"
#include "device/cuda.hpp"
#include "core/dims.hpp"
#include "gpu_guard.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"
#include "kernel/py_kernel.hpp"
#include "stages/verify/reference.hpp"
#include "unit/test_python_support.hpp"

using namespace kprof;
using namespace kprof_test;

#define KPROF_REQUIRE_TORCH()                                                                       \
  do {                                                                                              \
    KPROF_REQUIRE_GPU();                                                                            \
    std::string kprof_torch_why_ = kprof::torch_unavailable_reason();                               \
    if (!kprof_torch_why_.empty()) GTEST_SKIP() << "needs PyTorch with CUDA: " << kprof_torch_why_; \
    kprof::select_gpu(0);                                                                           \
    kprof::python_select_gpu(0);                                                                    \
  } while (0)

namespace {

/// cudaMalloc'ed memory owned by the test (as kprof's buffers are).
struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t b) : bytes(b) { cuda_check(cudaMalloc(&ptr, b), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void upload(const void* src) { cuda_check(cudaMemcpy(ptr, src, bytes, cudaMemcpyHostToDevice), "upload"); }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> v(bytes);
    cuda_check(cudaMemcpy(v.data(), ptr, bytes, cudaMemcpyDeviceToHost), "download");
    return v;
  }
};

double as_scalar(const void* p) { return static_cast<double>(reinterpret_cast<uintptr_t>(p)); }

Dims dims_of(const std::vector<std::string>& words) {
  Dims d;
  parse_dim_args(words, d);
  return d;
}

}  // namespace

TEST(PythonGpu, ReferenceSeesKprofMemoryWithoutACopy) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 1000;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i) - 100.0f;
  DeviceBuffer dx(n * 4), dout(n * 4);
  dx.upload(x.data());
  cuda_check(cudaMemset(dout.ptr, 0, n * 4), "memset");
  std::vector<BufferView> bufs = {{"x", DType::F32, n, dx.ptr, false}, {"out", DType::F32, n, dout.ptr, true}};
  // ref_gpu_inspect.py asserts data_ptr() == these pointers (no copy) and fills `out` in place.
  std::vector<ScalarArg> sc = {
      {"N", double(n), true}, {"x_ptr", as_scalar(dx.ptr), true}, {"out_ptr", as_scalar(dout.ptr), true}};
  ReferenceModule ref = ReferenceModule::load(py_data("ref_gpu_inspect.py"));
  std::vector<HostArray> host = ref.call(bufs, sc).outputs;
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0].name, "out");
  EXPECT_EQ(host[0].dtype, DType::F32);
  ASSERT_EQ(host[0].count, n);
  std::vector<uint8_t> written = dout.download();  // the reference wrote kprof's own memory
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(host[0].at(i), 2.0 * x[i]) << i;
    EXPECT_EQ(dtype_load(written.data(), i, DType::F32), 2.0 * x[i]) << i;
  }
}

TEST(PythonGpu, DeviceTensorAliasesEveryDtypeThroughBothBridges) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 257;
  for (DType dt : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I8, DType::I16, DType::I32, DType::I64,
                   DType::U8, DType::U16, DType::U32, DType::U64}) {
    for (TensorBridge bridge : {TensorBridge::CudaArrayInterface, TensorBridge::DLPack}) {
      SCOPED_TRACE(dtype_name(dt) + (bridge == TensorBridge::DLPack ? " via DLPack" : " via CAI"));
      DeviceBuffer buf(n * dtype_size(dt));
      std::vector<uint8_t> pattern(buf.bytes);
      for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>((i * 37 + 11) & 0x3f);
      buf.upload(pattern.data());
      ensure_python();
      py::gil_scoped_acquire gil;
      torch_use_selected_device();
      if (bridge == TensorBridge::CudaArrayInterface) {
        try {
          py::module_::import("numpy");
        } catch (const py::error_already_set&) {
          continue;  // torch reads __cuda_array_interface__ through numpy; Auto uses DLPack then
        }
      }
      {
        py::object t = device_tensor(buf.ptr, n, dt, bridge);
        EXPECT_EQ(t.attr("data_ptr")().cast<uintptr_t>(), reinterpret_cast<uintptr_t>(buf.ptr));
        EXPECT_EQ(py::str(t.attr("dtype")).cast<std::string>(), "torch." + dtype_name(dt));
        EXPECT_EQ(t.attr("numel")().cast<size_t>(), n);
        EXPECT_TRUE(t.attr("is_cuda").cast<bool>());
        HostArray h = tensor_to_host("t", t, "test tensor");
        EXPECT_EQ(h.dtype, dt);
        EXPECT_EQ(std::vector<uint8_t>(h.bytes.begin(), h.bytes.end()), pattern);
        t.attr("view")(import_torch().attr("uint8")).attr("zero_")();  // writes through to the test's memory
        import_torch().attr("cuda").attr("synchronize")();
      }
      std::vector<uint8_t> after = buf.download();
      EXPECT_EQ(after, std::vector<uint8_t>(buf.bytes, 0));
    }
  }
}

TEST(PythonGpu, Bfloat16RoundTrip) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 512;
  std::vector<uint16_t> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = float_to_bf16_bits(0.25f * static_cast<float>(i % 64) - 8.0f);
  DeviceBuffer dx(n * 2), dout(n * 2);
  dx.upload(x.data());
  cuda_check(cudaMemset(dout.ptr, 0xff, n * 2), "memset");
  ReferenceModule ref = ReferenceModule::load(py_data("ref_gpu_bf16.py"));
  std::vector<HostArray> host =
      ref.call({{"x", DType::BF16, n, dx.ptr, false}, {"out", DType::BF16, n, dout.ptr, true}}, {}).outputs;
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0].dtype, DType::BF16);
  ASSERT_EQ(host[0].count, n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(host[0].at(i), 2.0 * bf16_bits_to_float(x[i])) << i;
  EXPECT_EQ(dx.download(),
            std::vector<uint8_t>(reinterpret_cast<uint8_t*>(x.data()), reinterpret_cast<uint8_t*>(x.data()) + n * 2));
}

TEST(PythonGpu, ReferenceReturnForms) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 64;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.5f;
  DeviceBuffer dx(n * 4), dout(n * 4);
  dx.upload(x.data());
  std::vector<BufferView> bufs = {{"x", DType::F32, n, dx.ptr, false}, {"out", DType::F32, n, dout.ptr, true}};
  ReferenceModule ref = ReferenceModule::load(py_data("ref_gpu_returns.py"));
  auto run = [&](int form) { return ref.call(bufs, {{"form", double(form), true}}).outputs; };
  for (int form : {0, 1, 2, 3}) {
    SCOPED_TRACE("form " + std::to_string(form));
    std::vector<HostArray> host = run(form);
    ASSERT_EQ(host.size(), 1u);
    EXPECT_EQ(host[0].dtype, form == 3 ? DType::F64 : DType::F32);
    ASSERT_EQ(host[0].count, n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(host[0].at(i), x[i] + 1.0) << i;
  }
  Error short_by_one = error_of([&] { run(4); });
  EXPECT_EQ(short_by_one.code(), ExitCode::Usage);
  EXPECT_HAS(short_by_one.what(), "reference output 'out' has 63 elements, the buffer has 64");
  EXPECT_HAS(error_of([&] { run(5); }).what(), "dict without any output (its keys: other; outputs: out)");
  EXPECT_HAS(error_of([&] { run(6); }).what(), "reference output 'out' is a list, not a torch.Tensor");

  DeviceBuffer da(n * 4), db(n * 4);
  ReferenceModule two = ReferenceModule::load(py_data("ref_gpu_two_outputs.py"));
  Error e = error_of([&] {
    two.call(
        {{"x", DType::F32, n, dx.ptr, false}, {"a", DType::F32, n, da.ptr, true}, {"b", DType::F32, n, db.ptr, true}},
        {});
  });
  EXPECT_HAS(e.what(),
             "reference returned one new tensor (64 elements) but the kernel has 2 output buffers (a, b), "
             "0 of them changed by the kernel");
  EXPECT_HAS(e.hint(), "return a dict naming it");
}

TEST(PythonGpu, TorchKernelRunsAndItsOutputsAreRead) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 1000;
  auto kernel = load_py_kernel(py_data("kernel_torch.py"), Implementation::Triton, dims_of({"--N=1000"}));
  kernel->prepare(7);
  std::vector<BufferView> b = kernel->buffers();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].name, "x");
  EXPECT_FALSE(b[0].is_output);
  EXPECT_EQ(b[1].name, "out");
  EXPECT_TRUE(b[1].is_output);
  for (const BufferView& v : b) {
    EXPECT_EQ(v.dtype, DType::F32);
    EXPECT_EQ(v.count, n);
  }
  std::vector<ScalarArg> s = kernel->scalars();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "N");
  EXPECT_TRUE(s[0].is_int);
  EXPECT_EQ(s[0].value, 1000.0);
  EXPECT_EQ(s[1].name, "scale");
  EXPECT_FALSE(s[1].is_int);
  EXPECT_EQ(s[1].value, 2.0);
  EXPECT_HAS(kernel->signature(), "x: float32[1000], out: float32[1000] (output), N=1000, scale=2.0, mode: str");

  kernel->call();
  HostArray x = copy_to_host("x", DType::F32, n, b[0].ptr);
  HostArray out = copy_to_host("out", DType::F32, n, b[1].ptr);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(out.at(i), 2.0 * x.at(i)) << i;

  // The reference receives run_kernel's kwargs: mode and flag come through extend_reference_kwargs.
  ReferenceModule ref = ReferenceModule::load(py_data("ref_torch_kernel.py"));
  std::vector<HostArray> expected = ref.call(kernel->buffers(), kernel->scalars(), kernel.get()).outputs;
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].bytes, out.bytes);

  // Same seed, same inputs; another seed, other inputs.
  kernel->prepare(7);
  EXPECT_EQ(copy_to_host("x", DType::F32, n, kernel->buffers()[0].ptr).bytes, x.bytes);
  kernel->prepare(8);
  EXPECT_NE(copy_to_host("x", DType::F32, n, kernel->buffers()[0].ptr).bytes, x.bytes);
}

TEST(PythonGpu, KernelCallableFromAWorkerThread) {
  KPROF_REQUIRE_TORCH();
  auto kernel = load_py_kernel(py_data("kernel_torch.py"), Implementation::Triton, dims_of({"--N=256"}));
  std::string failure;
  std::thread worker([&] {
    try {
      kernel->prepare(3);
      kernel->call();
      cuda_check(cudaDeviceSynchronize(), "sync");
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  worker.join();
  ASSERT_EQ(failure, "");
  std::vector<BufferView> b = kernel->buffers();
  HostArray x = copy_to_host("x", DType::F32, 256, b[0].ptr);
  HostArray out = copy_to_host("out", DType::F32, 256, b[1].ptr);
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(out.at(i), 2.0 * x.at(i)) << i;
}

TEST(PythonGpu, RunKernelExceptionShowsTheLine) {
  KPROF_REQUIRE_TORCH();
  std::string path = py_data("kernel_torch_raises.py");
  auto kernel = load_py_kernel(path, Implementation::Triton, dims_of({"--N=8"}));
  kernel->prepare(0);
  Error e = error_of([&] { kernel->call(); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "run_kernel raised an exception: kernel_torch_raises.py:" +
                           std::to_string(line_of(path, "kprof-test-marker: run_kernel raises")) + " in run_kernel");
  EXPECT_HAS(e.what(), "RuntimeError");
}

TEST(PythonGpu, SetupTensorsMustBeContiguousCudaOfAKnownDtype) {
  KPROF_REQUIRE_TORCH();
  const std::vector<std::string> expect = {
      "returned output 'out' on cpu; kprof needs CUDA tensors",
      "returned output 'out' not contiguous",
      "returned output 'out' with dtype torch.bool",
      "returned input 'x' on cpu",
  };
  for (size_t c = 0; c < expect.size(); ++c) {
    auto kernel = load_py_kernel(py_data("kernel_torch_bad.py"), Implementation::Triton,
                                 dims_of({"--N=16", "--case=" + std::to_string(c)}));
    Error e = error_of([&] { kernel->prepare(0); });
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_HAS(e.what(), expect[c]);
    EXPECT_TRUE(kernel->buffers().empty());
  }
}

// A Python kernel's outputs of two or more dimensions reach the reference flat first
// (the seed's convention), shaped after a raise; in-place results may be returned; a new tensor
// for several buffers goes to the one the kernel changed; a dict may omit unchanged buffers.
TEST(PythonGpu, ReferenceConventionsForShapedOutputs) {
  KPROF_REQUIRE_TORCH();
  const size_t rows = 8, cols = 16, n = rows * cols;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) - 50.0f;
  DeviceBuffer dx(n * 4), dout(n * 4);
  dx.upload(x.data());
  std::vector<int64_t> shape = {int64_t(rows), int64_t(cols)};
  std::vector<BufferView> bufs = {{"x", DType::F32, n, dx.ptr, false, shape},
                                  {"out", DType::F32, n, dout.ptr, true, shape}};
  int restores = 0;
  auto restore = [&] { ++restores; };
  ReferenceModule ref = ReferenceModule::load(py_data("ref_conventions.py"));
  auto run = [&](int form) { return ref.call(bufs, {{"form", double(form), true}}, nullptr, {}, restore); };
  for (int form : {0, 2, 3}) {
    SCOPED_TRACE("form " + std::to_string(form));
    ReferenceCall c = run(form);
    ASSERT_EQ(c.outputs.size(), 1u);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(c.outputs[0].at(i), 2.0 * x[i]) << i;
    ASSERT_FALSE(c.notes.empty());
    EXPECT_HAS(c.notes.back(), "flat 1-D views (the original kernel-profile scripts' convention");
  }
  EXPECT_EQ(restores, 0);
  // Flat raises, shaped works: a note naming both. Two restores: the first flat call ran under
  // PyTorch's FlopCounterMode (the first call of this key counts the reference's FLOPs), so it is
  // tried once more without the counter (restore 1), raises again (the reference's own error), and
  // the shaped convention follows (restore 2).
  ReferenceCall shaped = run(1);
  EXPECT_EQ(restores, 2);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(shaped.outputs[0].at(i), 2.0 * x[i]) << i;
  ASSERT_EQ(shaped.notes.size(), 2u);
  EXPECT_HAS(shaped.notes[0], "reference raised with the outputs flat");
  EXPECT_HAS(shaped.notes[1], "in setup()'s shapes");
  ReferenceCall again = run(1);  // the convention that worked is tried first next time
  EXPECT_EQ(restores, 2);
  EXPECT_EQ(again.notes.size(), 1u);
  Error e = error_of([&] { run(4); });
  EXPECT_EQ(e.code(), ExitCode::Usage);
  EXPECT_HAS(e.what(), "broken reference");
  EXPECT_HAS(e.what(), "(and with them");
  // solve()-style flat buffers have one convention: no retry, no note.
  std::vector<BufferView> flat = {{"x", DType::F32, n, dx.ptr, false}, {"out", DType::F32, n, dout.ptr, true}};
  ReferenceCall f = ref.call(flat, {{"form", 0.0, true}}, nullptr, {}, restore);
  EXPECT_TRUE(f.notes.empty());
  EXPECT_HAS(error_of([&] { ref.call(flat, {{"form", 4.0, true}}, nullptr, {}, restore); }).what(), "broken reference");
}

TEST(PythonGpu, ANewTensorForSeveralBuffersGoesToTheOneTheKernelChanged) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 64;
  std::vector<float> x(n), a0(n, 7.0f);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  DeviceBuffer dx(n * 4), da(n * 4), db(n * 4);
  dx.upload(x.data());
  da.upload(a0.data());
  std::vector<BufferView> bufs = {
      {"x", DType::F32, n, dx.ptr, false}, {"a", DType::F32, n, da.ptr, true}, {"b", DType::F32, n, db.ptr, true}};
  ReferenceModule ref = ReferenceModule::load(py_data("ref_two_buffers.py"));
  for (int form : {0, 1}) {
    SCOPED_TRACE("form " + std::to_string(form));
    ReferenceCall c = ref.call(bufs, {{"form", double(form), true}}, nullptr, {0, 0, 1});
    ASSERT_EQ(c.outputs.size(), 2u);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(c.outputs[0].at(i), 7.0) << i;  // a: as given
      ASSERT_EQ(c.outputs[1].at(i), x[i] + 1.0) << i;
    }
    EXPECT_HAS(c.notes.back(), form == 0 ? "compared with 'b'" : "omits a");
  }
  Error e = error_of([&] { ref.call(bufs, {{"form", 0.0, true}}, nullptr, {0, 1, 1}); });
  EXPECT_HAS(e.what(), "2 of them changed by the kernel (a, b)");
}

TEST(PythonGpu, TheReferencesFloat32MatmulPrecisionIsRecorded) {
  KPROF_REQUIRE_TORCH();
  const size_t n = 16;
  DeviceBuffer dx(n * 4), dout(n * 4);
  std::vector<BufferView> bufs = {{"x", DType::F32, n, dx.ptr, false}, {"out", DType::F32, n, dout.ptr, true}};
  ReferenceCall plain = ReferenceModule::load(py_data("ref_conventions.py")).call(bufs, {{"form", 0.0, true}});
  ASSERT_TRUE(plain.precision.known);
  bool was_tf32 = plain.precision.matmul_tf32;
  ReferenceCall tf32 = ReferenceModule::load(py_data("ref_tf32.py")).call(bufs, {});
  EXPECT_TRUE(tf32.precision.matmul_tf32);
  EXPECT_TRUE(tf32.precision.reduced_matmul());
  ensure_python();
  py::gil_scoped_acquire gil;  // leave the process as it was for other tests
  import_torch().attr("backends").attr("cuda").attr("matmul").attr("allow_tf32") = py::bool_(was_tf32);
}
