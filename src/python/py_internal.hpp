// The pybind11-level helpers shared by the files of src/python (not for other stages: they use
// interpreter.hpp, reference.hpp and py_kernel.hpp). Every function here expects the GIL to be
// held by the caller (py::gil_scoped_acquire after ensure_python()).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <optional>
#include <string>

#include "device/host_array.hpp"
#include "core/dtype.hpp"

namespace kprof {

namespace py = pybind11;

/// kprof's own helper module `_kprof` (Python source embedded in interpreter.cpp): module
/// loading by path, exception description, the __cuda_array_interface__ wrapper. Created at start-up.
py::module_ kprof_helpers();

/// Loads the Python file `path` as a fresh module with a unique name ("kprof_<role>_<stem>_<n>"),
/// registered in sys.modules before it runs, its folder prepended to sys.path (Triton's @jit
/// needs the real source file). The source is compiled on every load (no .pyc is read or
/// written), so a file edited a moment ago is never run stale. `role` ("ref", "kernel") only
/// names the module.
/// Throws Error (exit 2): missing file, not a file, not .py-loadable, or an exception while the
/// module runs (SyntaxError: its own file:line; else the user's line, see errors.hpp).
py::module_ load_module_by_path(const std::string& path, const std::string& role);

/// "int", "str", "torch.Tensor", ...: the type of `obj` for messages.
std::string py_type_name(py::handle obj);

/// The type with its article, for messages: "an int", "a list", "a torch.Tensor".
std::string py_a_type(py::handle obj);

/// `import torch`, once per process (the module is cached; a failed import is remembered).
/// Throws Error (exit 1) "PyTorch cannot be imported by kprof's embedded Python (<exe>): <error>"
/// with a hint on installing torch or setting KPROF_PYTHON.
py::module_ import_torch();

/// True when torch is already in sys.modules (imported by a user module or by kprof). Never
/// imports it: checks that need torch only when tensors can exist use this first.
bool torch_loaded();

/// True when `obj` is a torch.Tensor; false (without importing torch) when torch is not loaded.
bool is_tensor(py::handle obj);

/// Makes the GPU chosen by python_select_gpu() (or kprof's current CUDA device) torch's current
/// device on this thread, once per thread. No-op when torch is not loaded or no GPU is visible.
/// Throws Error (exit 1) when torch.cuda.set_device fails.
void torch_use_selected_device();

/// torch.cuda.synchronize() when torch is loaded and has initialised CUDA; else nothing.
/// Throws Error (exit 1) with the CUDA error torch reports (`what` says whose work failed).
void torch_synchronize(const std::string& what);

/// The kprof DType of a tensor's dtype (torch.float32 -> F32, ...); nullopt for dtypes kprof does
/// not compare (bool, complex, float8, ...).
std::optional<DType> tensor_dtype(py::handle tensor);

/// How device_tensor() hands kprof-owned memory to torch.
enum class TensorBridge {
  Auto,                ///< CudaArrayInterface when numpy can be imported, else DLPack
  CudaArrayInterface,  ///< torch.as_tensor(obj with __cuda_array_interface__ v3); torch needs numpy for it
  DLPack,              ///< torch.utils.dlpack.from_dlpack(capsule built by kprof); no numpy needed
};

/// A 1-D torch CUDA tensor of `count` elements of `dtype` over the device memory at `ptr`,
/// WITHOUT a copy (its data_ptr() is `ptr` and its device the memory's GPU; checked). bfloat16
/// and uint16/32/64 travel as the signed integer of their size ("<i2", ...) and are viewed as
/// their dtype. The memory must outlive the tensor (kprof owns it). Call
/// torch_use_selected_device() first (the array-interface path uses torch's current device).
/// Throws Error (exit 1) when `ptr` is not device memory or torch would copy.
py::object device_tensor(void* ptr, size_t count, DType dtype, TensorBridge bridge = TensorBridge::Auto);

/// DLPack device types (dlpack.h DLDeviceType) used by dlpack_capsule.
constexpr int kDLCPU = 1;
constexpr int kDLCUDA = 2;

/// A legacy (unversioned) DLPack capsule "dltensor" describing `count` elements of `dtype` at
/// `ptr` on (`device_type`, `device_id`), 1-D and compact. Whoever consumes it (torch, numpy)
/// renames it "used_dltensor" and calls its deleter, which frees only kprof's metadata, never
/// the memory. An unconsumed capsule frees its metadata when collected.
py::object dlpack_capsule(void* ptr, size_t count, DType dtype, int device_type, int device_id);

/// Copies tensor `t` (any device, any shape: flattened) to a HostArray named `name` in its own
/// dtype. Throws Error (exit 2) for a dtype kprof cannot compare, naming `what` (e.g.
/// "reference output 'C'").
HostArray tensor_to_host(const std::string& name, py::handle t, const std::string& what);

}  // namespace kprof
