// PyTorch from C++: the one import, the device torch uses, tensors over kprof's device memory
// (no copy) and tensors back to host arrays.
#include "python/py_internal.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"

namespace kprof {

namespace {

// Guarded by the GIL. Leaked on purpose (Python is never finalized; see interpreter.cpp).
py::module_* g_torch = nullptr;
std::string* g_torch_failure = nullptr;
int g_numpy = -1;  // -1 unknown, 0 missing, 1 importable

std::atomic<int> g_gpu{-1};
thread_local int t_torch_device = -1;  // the device torch.cuda.set_device got on this thread

/// What to do when torch cannot be imported: the executable can embed another Python, the package
/// runs on the one it is installed in.
std::string torch_hint() {
  if (python_hosted())
    return "install PyTorch with CUDA into " + python_executable() +
           "'s environment (the Python kprof is installed in); `kprof env` shows what it sees";
  return "install PyTorch with CUDA for that interpreter (pip install torch), or set KPROF_PYTHON to a "
         "python (e.g. <venv>/bin/python) that has it; `kprof env` shows what the embedded Python sees";
}

// ---- DLPack (legacy, unversioned ABI: dlpack.h v0.8) ---------------------------------------
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4;

struct DLHolder {
  DLManagedTensor managed{};
  int64_t shape[1] = {0};
};

void dl_deleter(DLManagedTensor* self) { delete static_cast<DLHolder*>(self->manager_ctx); }

void dl_capsule_destructor(PyObject* capsule) {
  // torch renames a consumed capsule to "used_dltensor" and calls the deleter itself later.
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  }
}

DLDataType dl_dtype(DType t) {
  uint8_t bits = static_cast<uint8_t>(dtype_size(t) * 8);
  uint8_t code = kDLFloat;
  if (t == DType::BF16)
    code = kDLBfloat;
  else if (dtype_is_signed_int(t))
    code = kDLInt;
  else if (!dtype_is_float(t))
    code = kDLUInt;
  return DLDataType{code, bits, 1};
}

}  // namespace

py::object dlpack_capsule(void* ptr, size_t count, DType dtype, int device_type, int device_id) {
  auto* h = new DLHolder();
  h->shape[0] = static_cast<int64_t>(count);
  DLTensor& t = h->managed.dl_tensor;
  t.data = ptr;
  t.device = DLDevice{device_type, device_id};
  t.ndim = 1;
  t.dtype = dl_dtype(dtype);
  t.shape = h->shape;
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  h->managed.manager_ctx = h;
  h->managed.deleter = dl_deleter;
  PyObject* cap = PyCapsule_New(&h->managed, "dltensor", dl_capsule_destructor);
  if (!cap) {
    delete h;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

namespace {

bool numpy_importable() {
  if (g_numpy < 0) {
    try {
      py::module_::import("numpy");
      g_numpy = 1;
    } catch (const py::error_already_set&) {
      g_numpy = 0;
    }
  }
  return g_numpy == 1;
}

py::dict sys_modules() { return py::module_::import("sys").attr("modules"); }

}  // namespace

void python_select_gpu(int gpu) { g_gpu.store(gpu); }

py::module_ import_torch() {
  if (g_torch) return *g_torch;
  if (g_torch_failure) throw check_failed(*g_torch_failure, torch_hint());
  try {
    g_torch = new py::module_(py::module_::import("torch"));
  } catch (const py::error_already_set& e) {
    g_torch_failure = new std::string("PyTorch cannot be imported by kprof's embedded Python (" + python_executable() +
                                      "): " + describe_python_error(e, ""));
    throw check_failed(*g_torch_failure, torch_hint());
  }
  return *g_torch;
}

std::string python_preimport(const std::string& module) {
  try {
    ensure_python();
    py::gil_scoped_acquire gil;
    if (module == "torch") {
      import_torch();
    } else {
      py::module_::import(module.c_str());
    }
  } catch (const Error& e) {
    return e.what();
  } catch (py::error_already_set& e) {
    return describe_python_error(e, "");
  }
  return "";
}

std::string keep_triton_autotuning() {
  constexpr const char* kVar = "TRITON_CACHE_AUTOTUNING";
  ::setenv(kVar, "1", /*overwrite=*/0);
  const char* v = std::getenv(kVar);
  return v ? v : "";
}

std::string torch_unavailable_reason() {
  try {
    ensure_python();
    py::gil_scoped_acquire gil;
    try {
      py::module_ torch = import_torch();
      if (!torch.attr("cuda").attr("is_available")().cast<bool>())
        return "torch " + py::str(torch.attr("__version__")).cast<std::string>() +
               ": torch.cuda.is_available() is False (torch built for CUDA " +
               py::str(torch.attr("version").attr("cuda")).cast<std::string>() + ")";
    } catch (const py::error_already_set& e) {
      return "PyTorch is not usable: " + describe_python_error(e, "");
    }
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

bool torch_loaded() { return g_torch != nullptr || sys_modules().contains("torch"); }

bool is_tensor(py::handle obj) {
  if (!torch_loaded()) return false;
  return py::isinstance(obj, import_torch().attr("Tensor"));
}

void torch_use_selected_device() {
  if (!torch_loaded()) return;
  int gpu = g_gpu.load();
  if (gpu < 0) {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess) {
      cudaGetLastError();
      return;  // no GPU: nothing to share
    }
    gpu = current;
  }
  if (t_torch_device == gpu) return;
  py::module_ torch = import_torch();
  try {
    torch.attr("cuda").attr("set_device")(gpu);
  } catch (const py::error_already_set& e) {
    throw check_failed("torch.cuda.set_device(" + std::to_string(gpu) + ") failed: " + describe_python_error(e, ""),
                       "check that the GPU index is valid and that torch was built with CUDA");
  }
  t_torch_device = gpu;
}

void torch_synchronize(const std::string& what) {
  if (!torch_loaded()) return;
  py::module_ torch = import_torch();
  try {
    if (!torch.attr("cuda").attr("is_initialized")().cast<bool>()) return;
    torch.attr("cuda").attr("synchronize")();
  } catch (const py::error_already_set& e) {
    throw_python_error(e, "", what, "", ExitCode::Failed);
  }
}

std::optional<DType> tensor_dtype(py::handle tensor) {
  std::string name = py::str(tensor.attr("dtype")).cast<std::string>();  // "torch.float32"
  return dtype_from_name(name);
}

py::object device_tensor(void* ptr, size_t count, DType dtype, TensorBridge bridge) {
  py::module_ torch = import_torch();
  if (count == 0)
    return torch.attr("empty")(0, py::arg("dtype") = torch.attr(dtype_name(dtype).c_str()), py::arg("device") = "cuda");
  cudaPointerAttributes attr{};
  cudaError_t rc = cudaPointerGetAttributes(&attr, ptr);
  if (rc != cudaSuccess || (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)) {
    cudaGetLastError();
    throw check_failed("internal: buffer at " + std::to_string(reinterpret_cast<uintptr_t>(ptr)) +
                       " is not CUDA device memory, so PyTorch cannot view it");
  }
  if (bridge == TensorBridge::Auto)
    bridge = numpy_importable() ? TensorBridge::CudaArrayInterface : TensorBridge::DLPack;
  // bfloat16 has no numpy typestr, and numpy/DLPack support for uint16/32/64 in torch is recent:
  // those travel as the signed integer of their size and are viewed as their dtype.
  DType carrier = dtype;
  if (dtype == DType::BF16 || dtype == DType::U16) carrier = DType::I16;
  if (dtype == DType::U32) carrier = DType::I32;
  if (dtype == DType::U64) carrier = DType::I64;
  py::object t;
  try {
    if (bridge == TensorBridge::CudaArrayInterface) {
      py::object arr = kprof_helpers().attr("DeviceArray")(py::int_(reinterpret_cast<uintptr_t>(ptr)), py::int_(count),
                                                           dtype_typestr(carrier));
      t = torch.attr("as_tensor")(arr);
    } else {
      py::object from_dlpack = py::module_::import("torch.utils.dlpack").attr("from_dlpack");
      t = from_dlpack(dlpack_capsule(ptr, count, carrier, kDLCUDA, attr.device));
    }
    if (carrier != dtype) t = t.attr("view")(torch.attr(dtype_name(dtype).c_str()));
  } catch (const py::error_already_set& e) {
    throw check_failed(
        "cannot hand a " + dtype_name(dtype) + " device buffer to PyTorch: " + describe_python_error(e, ""),
        bridge == TensorBridge::CudaArrayInterface ? "PyTorch reads __cuda_array_interface__ through numpy; check numpy"
                                                   : "check that this torch supports DLPack");
  }
  auto data = t.attr("data_ptr")().cast<uintptr_t>();
  int device = t.attr("device").attr("index").cast<int>();
  if (data != reinterpret_cast<uintptr_t>(ptr) || device != attr.device)
    throw check_failed("internal: PyTorch copied kprof's buffer (tensor on cuda:" + std::to_string(device) +
                           ", memory on GPU " + std::to_string(attr.device) + ")",
                       "torch's current device must be kprof's GPU (python_select_gpu)");
  return t;
}

HostArray tensor_to_host(const std::string& name, py::handle t, const std::string& what) {
  std::optional<DType> dt = tensor_dtype(t);
  if (!dt)
    throw usage_error(
        what + " has dtype " + py::str(t.attr("dtype")).cast<std::string>() + ", which kprof does not compare",
        "convert it (for example .float()); supported: float64, float32, float16, "
        "bfloat16, int8..int64, uint8..uint64");
  HostArray a;
  a.name = name;
  a.dtype = *dt;
  try {
    py::object flat = t.attr("detach")().attr("reshape")(-1).attr("cpu")().attr("contiguous")();
    a.count = flat.attr("numel")().cast<size_t>();
    a.bytes.resize(a.count * dtype_size(a.dtype));
    if (!a.bytes.empty()) {
      auto src = flat.attr("data_ptr")().cast<uintptr_t>();
      std::memcpy(a.bytes.data(), reinterpret_cast<const void*>(src), a.bytes.size());
    }
  } catch (const py::error_already_set& e) {
    throw_python_error(e, "", "copying " + what + " to the host failed", "", ExitCode::Failed);
  }
  return a;
}

}  // namespace kprof
