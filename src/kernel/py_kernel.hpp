// triton and cute-dsl kernels: a Python module defining setup(**kwargs) and run_kernel(**kwargs)
// (the seed's "Supported Implementations"), driven through the KernelInstance interface.
//
//   setup(**dims, seed=S) -> {"inputs": {name: value}, "outputs": [names]}
//   run_kernel(**inputs)
//
// Tensor-valued inputs are the buffers (contiguous CUDA torch tensors of a kprof dtype); the
// names in "outputs" are the buffers the kernel writes; int/float inputs are its scalars; every
// other input (str, bool, None, lists, ...) is passed through to the reference unchanged. The
// reference of a Python kernel thus receives exactly the kwargs run_kernel received, with the
// tensors replaced by kprof's copies.
#pragma once

#include <memory>
#include <string>

#include "core/dims.hpp"
#include "core/implementation.hpp"
#include "kernel/kernel_instance.hpp"

namespace kprof {

/// Loads the module at `path` by file path (starts Python if needed) and checks that `setup` and
/// `run_kernel` exist and are callable. `dims` are passed to setup() on every prepare(): integer
/// dimensions as int, the others as float.
/// Throws Error (exit 2): `impl` is not triton/cute-dsl, missing file, an import/syntax error
/// (the Python error with its file:line), a missing or non-callable setup/run_kernel (named).
///
/// The returned KernelInstance:
///  - prepare(seed): drops the previous inputs, seeds torch (torch.manual_seed) and Python's
///    random when torch is loaded, calls setup(**dims, seed=seed), synchronises, validates.
///    Throws Error (exit 2) naming "setup", the key and what was wrong: an exception inside setup
///    (the Python error line), a result that is not a dict, "inputs" not a dict with str keys,
///    "outputs" not a non-empty list/tuple of str, an output missing from inputs or listed twice,
///    an output that is not a torch tensor, a tensor that is not a contiguous CUDA tensor on
///    kprof's GPU or whose dtype kprof does not support. The structural checks run first and
///    never import torch.
///  - buffers(): the tensor inputs in inputs order (ptr = data_ptr(), count = numel(),
///    is_output when listed in "outputs"); valid until the next prepare().
///  - scalars(): the int/float inputs (bool excluded), in inputs order.
///  - call(): run_kernel(**inputs), GIL taken inside (callable from any thread). Throws Error
///    (exit 2) naming run_kernel with the Python error line; (exit 1) when the Python error is a
///    CUDA error (a kernel fault).
///  - extend_reference_kwargs(): every non-tensor input as the original Python object.
std::unique_ptr<KernelInstance> load_py_kernel(const std::string& path, Implementation impl, const Dims& dims);

}  // namespace kprof
