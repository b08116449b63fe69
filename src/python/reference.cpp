#include "python/reference.hpp"

#include <fmt/format.h>

#include <pybind11/pybind11.h>

#include <cmath>

#include "core/error.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"
#include "python/source_check.hpp"

namespace kprof {

/// The Python side of a ReferenceModule. Destroyed with the GIL held (see make_state).
struct __attribute__((visibility("hidden"))) ReferenceModule::State {
  py::object module;
  py::object fn;
  std::string file;  ///< absolute path, for choosing the user's traceback frame
};

namespace {

/// The hint for a ref.py without `reference`, found by reading it (check_reference_source) or by
/// importing it (ReferenceModule::load).
const char* kNoReferenceHint =
    "add `def reference(**kwargs):` (it receives the kernel's buffers as tensors and its scalars by name; "
    "see docs/REFERENCE.md)";

const char* kReturnHint =
    "reference may fill the output tensors it was given and return None, return the one output "
    "tensor, a dict {output name: tensor}, or a tuple of tensors in output order (docs/REFERENCE.md)";

std::string join_names(const std::vector<const BufferView*>& outputs) {
  std::string s;
  for (const BufferView* b : outputs) s += (s.empty() ? "" : ", ") + b->name;
  return s.empty() ? "none" : s;
}

std::optional<double> read_tolerance(const py::module_& m, const char* name, const std::string& path) {
  if (!py::hasattr(m, name)) return std::nullopt;
  py::object v = m.attr(name);
  if (v.is_none()) return std::nullopt;
  py::object real = py::module_::import("numbers").attr("Real");
  if (py::isinstance<py::bool_>(v) || !py::isinstance(v, real))
    throw usage_error(path + ": `" + name + "` must be a number, got " + py_a_type(v),
                      std::string("write for example `") + name + " = 1e-3` at module level, or remove it");
  double d = py::float_(v).cast<double>();
  if (!std::isfinite(d) || d < 0)
    throw usage_error(path + ": `" + name + "` must be a finite number >= 0, got " + py::str(v).cast<std::string>(),
                      std::string("tolerances are magnitudes: for example `") + name + " = 1e-3`");
  return d;
}

// The outputs reference produced, in `outputs` order (see ReferenceModule::call).
std::vector<py::object> collect_outputs(const py::object& ret, const std::vector<const BufferView*>& outputs,
                                        const std::vector<py::object>& given) {
  const size_t n = outputs.size();
  if (ret.is_none()) return given;
  if (is_tensor(ret)) {
    if (n != 1)
      throw usage_error("reference returned one tensor but the kernel has " + std::to_string(n) +
                            " outputs (" + join_names(outputs) + ")",
                        kReturnHint);
    return {ret};
  }
  std::vector<py::object> result;
  if (py::isinstance<py::dict>(ret)) {
    py::dict d = py::reinterpret_borrow<py::dict>(ret);
    for (const BufferView* b : outputs) {
      if (!d.contains(py::str(b->name))) {
        std::string keys;
        for (auto item : d) keys += (keys.empty() ? "" : ", ") + py::str(item.first).cast<std::string>();
        throw usage_error("reference returned a dict without output '" + b->name + "' (its keys: " +
                              (keys.empty() ? "none" : keys) + "; outputs: " + join_names(outputs) + ")",
                          kReturnHint);
      }
      result.push_back(d[py::str(b->name)]);
    }
    return result;
  }
  if (py::isinstance<py::tuple>(ret) || py::isinstance<py::list>(ret)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(ret);
    if (seq.size() != n)
      throw usage_error("reference returned " + std::to_string(seq.size()) + " values but the kernel has " +
                            std::to_string(n) + " outputs (" + join_names(outputs) + ")",
                        kReturnHint);
    for (size_t i = 0; i < n; ++i) result.push_back(seq[i]);
    return result;
  }
  throw usage_error("reference returned " + py_a_type(ret) +
                        "; expected None, a tensor, a dict or a tuple (outputs: " + join_names(outputs) + ")",
                    kReturnHint);
}

}  // namespace

void check_reference_source(const std::string& path) {
  check_python_source(path, {"reference"}, "fix ref.py (kprof reads it before any GPU work)", kNoReferenceHint);
}

ReferenceModule ReferenceModule::load(const std::string& path) {
  ensure_python();
  py::gil_scoped_acquire gil;
  ReferenceModule r;
  r.path_ = path;
  py::module_ m = load_module_by_path(path, "reference");
  if (!py::hasattr(m, "reference"))
    throw usage_error(path + " defines no function `reference`", kNoReferenceHint);
  py::object fn = m.attr("reference");
  if (!PyCallable_Check(fn.ptr()))
    throw usage_error(path + ": `reference` is " + py_a_type(fn) + ", not a function",
                      "define `def reference(**kwargs):`");
  r.atol_ = read_tolerance(m, "atol", path);
  r.rtol_ = read_tolerance(m, "rtol", path);
  r.state_ = std::shared_ptr<State>(new State{m, fn, m.attr("__file__").cast<std::string>()}, [](State* s) {
    py::gil_scoped_acquire release_gil;
    delete s;
  });
  return r;
}

std::vector<HostArray> ReferenceModule::call(const std::vector<BufferView>& buffers,
                                             const std::vector<ScalarArg>& scalars,
                                             const KernelInstance* kernel) const {
  if (!state_) throw check_failed("internal: ReferenceModule used before load()");
  ensure_python();
  py::gil_scoped_acquire gil;
  const std::string& file = state_->file;
  try {
    std::vector<const BufferView*> outputs;
    std::vector<py::object> given;
    py::dict kwargs;
    if (!buffers.empty()) import_torch();
    torch_use_selected_device();
    for (const BufferView& b : buffers) {
      py::object t = device_tensor(b.ptr, b.count, b.dtype);
      if (b.shape.size() > 1) {  // a Python kernel's 2-D (or more) tensor: same shape for the reference
        py::tuple shape(b.shape.size());
        for (size_t d = 0; d < b.shape.size(); ++d) shape[d] = py::int_(b.shape[d]);
        t = t.attr("view")(shape);
      }
      kwargs[py::str(b.name)] = t;
      if (b.is_output) {
        outputs.push_back(&b);
        given.push_back(t);
      }
    }
    for (const ScalarArg& s : scalars)
      kwargs[py::str(s.name)] = s.is_int ? py::object(py::int_(static_cast<long long>(s.value)))
                                         : py::object(py::float_(s.value));
    if (kernel) kernel->extend_reference_kwargs(kwargs);

    py::object ret;
    try {
      ret = state_->fn(**kwargs);
    } catch (const py::error_already_set& e) {
      throw_python_error(e, file, "reference raised an exception",
                         "fix " + path_ + "; reference(**kwargs) gets the kernel's buffers as CUDA tensors "
                         "(1-D for solve(); a Python kernel's shapes) and its scalars by name (docs/REFERENCE.md)");
    }
    std::vector<py::object> results = collect_outputs(ret, outputs, given);
    torch_synchronize("the reference's GPU work failed");

    std::vector<HostArray> host;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const BufferView& b = *outputs[i];
      std::string what = "reference output '" + b.name + "'";
      if (!is_tensor(results[i]))
        throw usage_error(what + " is " + py_a_type(results[i]) + ", not a torch.Tensor",
                          "return torch tensors (torch.as_tensor(x, device='cuda') converts other arrays)");
      size_t numel = results[i].attr("numel")().cast<size_t>();
      if (numel != b.count)
        throw usage_error(what + " has " + std::to_string(numel) + " elements, the buffer has " +
                              std::to_string(b.count),
                          "the reference must give one value per element of the kernel's output (compared "
                          "flattened); check the shapes and the dimensions passed to kprof");
      host.push_back(tensor_to_host(b.name, results[i], what));
    }
    return host;
  } catch (const py::error_already_set& e) {
    throw_python_error(e, file, "running the reference failed", "");
  }
}

}  // namespace kprof
