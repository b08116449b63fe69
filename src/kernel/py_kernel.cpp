#include "kernel/py_kernel.hpp"

#include <pybind11/pybind11.h>

#include <set>

#include "core/error.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"

namespace kprof {

namespace {

const char* kSetupHint =
    "setup(**kwargs) must return {\"inputs\": {name: value}, \"outputs\": [names of the tensors "
    "run_kernel writes]}; tensors must be contiguous CUDA torch tensors";

// The Python objects of one kernel. Destroyed with the GIL held (~PyKernel).
struct PyState {
  py::object module;
  py::object setup;
  py::object run_kernel;
  py::object inputs;  ///< the dict setup() returned under "inputs" (null before prepare)
};

std::string keys_of(const py::dict& d) {
  std::string s;
  for (auto item : d) s += (s.empty() ? "" : ", ") + py::str(item.first).cast<std::string>();
  return s.empty() ? "none" : s;
}

class PyKernel final : public KernelInstance {
 public:
  PyKernel(std::string path, Implementation impl, Dims dims, std::unique_ptr<PyState> state)
      : path_(std::move(path)), impl_(impl), dims_(std::move(dims)), py_(std::move(state)) {
    file_ = py_->module.attr("__file__").cast<std::string>();
  }

  ~PyKernel() override {
    py::gil_scoped_acquire gil;
    py_.reset();
  }

  Implementation implementation() const override { return impl_; }

  std::string signature() const override {
    if (params_.empty()) return "run_kernel(**setup(" + dims_.to_string() + ", seed)[\"inputs\"])";
    std::string s;
    for (const std::string& p : params_) s += (s.empty() ? "" : ", ") + p;
    return "run_kernel(" + s + ")";
  }

  void prepare(uint64_t seed) override {
    ensure_python();
    py::gil_scoped_acquire gil;
    clear();  // free the previous tensors before setup allocates new ones
    torch_use_selected_device();
    if (torch_loaded()) import_torch().attr("manual_seed")(py::int_(seed));
    py::module_::import("random").attr("seed")(py::int_(seed));

    py::dict kwargs;
    py::object to_int = py::module_::import("builtins").attr("int");
    for (const Dim& d : dims_.all())
      kwargs[py::str(d.name)] = d.is_int ? to_int(d.text) : py::object(py::float_(d.value));
    kwargs["seed"] = py::int_(seed);
    py::object result;
    try {
      result = py_->setup(**kwargs);
    } catch (const py::error_already_set& e) {
      throw_python_error(e, file_, "setup raised an exception",
                         "setup receives every --NAME=VALUE dimension and seed=S as keyword arguments "
                         "(add **kwargs to ignore extra ones)");
    }
    try {
      validate(result);
      torch_synchronize("setup's GPU work failed");
    } catch (const py::error_already_set& e) {
      clear();
      throw_python_error(e, file_, "checking what setup returned failed", kSetupHint);
    } catch (...) {
      clear();
      throw;
    }
  }

  std::vector<BufferView> buffers() const override { return buffers_; }

  std::vector<ScalarArg> scalars() const override { return scalars_; }

  void call() override {
    ensure_python();
    py::gil_scoped_acquire gil;
    if (!py_->inputs) throw check_failed("internal: run_kernel called before prepare()");
    torch_use_selected_device();
    try {
      py_->run_kernel(**py::reinterpret_borrow<py::dict>(py_->inputs));
    } catch (const py::error_already_set& e) {
      throw_python_error(e, file_, "run_kernel raised an exception",
                         "fix run_kernel in " + path_ +
                             "; it is called as run_kernel(**inputs) with "
                             "the inputs setup returned");
    }
  }

  // The caller holds the GIL (it is building a Python dict).
  void extend_reference_kwargs(py::dict& kwargs) const override {
    if (!py_->inputs) return;
    for (auto item : py::reinterpret_borrow<py::dict>(py_->inputs))
      if (!is_tensor(item.second)) kwargs[item.first] = item.second;
  }

 private:
  // GIL held.
  void clear() {
    py_->inputs = py::object();
    buffers_.clear();
    scalars_.clear();
    params_.clear();
  }

  [[noreturn]] void fail(const std::string& what) const { throw usage_error(path_ + ": setup " + what, kSetupHint); }

  // Structural checks first (no torch needed), then the tensors. Fills buffers_/scalars_/params_.
  void validate(const py::object& result) {
    if (!py::isinstance<py::dict>(result)) fail("returned " + py_a_type(result) + ", expected a dict");
    py::dict r = py::reinterpret_borrow<py::dict>(result);
    if (!r.contains("inputs")) fail("returned a dict without the key \"inputs\" (its keys: " + keys_of(r) + ")");
    if (!r.contains("outputs")) fail("returned a dict without the key \"outputs\" (its keys: " + keys_of(r) + ")");
    py::object inputs_obj = r["inputs"];
    if (!py::isinstance<py::dict>(inputs_obj))
      fail("returned \"inputs\" as " + py_a_type(inputs_obj) + ", expected a dict {name: value}");
    py::dict inputs = py::reinterpret_borrow<py::dict>(inputs_obj);
    for (auto item : inputs)
      if (!py::isinstance<py::str>(item.first))
        fail("returned \"inputs\" with the key " + py::repr(item.first).cast<std::string>() + " (" +
             py_a_type(item.first) + "); names must be str");
    py::object outputs_obj = r["outputs"];
    if (!py::isinstance<py::list>(outputs_obj) && !py::isinstance<py::tuple>(outputs_obj))
      fail("returned \"outputs\" as " + py_a_type(outputs_obj) + ", expected a list of input names");
    std::set<std::string> outputs;
    for (auto o : py::reinterpret_borrow<py::sequence>(outputs_obj)) {
      if (!py::isinstance<py::str>(o))
        fail("returned \"outputs\" with the entry " + py::repr(o).cast<std::string>() + " (" + py_a_type(o) +
             "); entries must be names (str) of tensors in \"inputs\"");
      std::string name = o.cast<std::string>();
      if (!inputs.contains(o))
        fail("lists output '" + name + "' in \"outputs\" but \"inputs\" has no such key (its keys: " + keys_of(inputs) +
             ")");
      if (!outputs.insert(name).second) fail("lists output '" + name + "' twice in \"outputs\"");
    }
    if (outputs.empty()) fail("returned an empty \"outputs\"; list the names of the tensors run_kernel writes");
    for (const std::string& name : outputs) {
      py::object v = inputs[py::str(name)];
      if (!is_tensor(v)) fail("returned output '" + name + "' as " + py_a_type(v) + ", not a torch tensor");
    }
    // Tensors: only reached when torch is loaded (an output is a tensor).
    torch_use_selected_device();
    int gpu = -1;  // torch's current device, read at the first CUDA tensor
    for (auto item : inputs) {
      std::string name = item.first.cast<std::string>();
      py::handle v = item.second;
      std::string role = outputs.count(name) ? "output" : "input";
      if (is_tensor(v)) {
        std::string where = py::str(v.attr("device")).cast<std::string>();
        if (!v.attr("is_cuda").cast<bool>())
          fail("returned " + role + " '" + name + "' on " + where + "; kprof needs CUDA tensors (device=\"cuda\")");
        if (gpu < 0) gpu = import_torch().attr("cuda").attr("current_device")().cast<int>();
        if (v.attr("device").attr("index").cast<int>() != gpu)
          fail("returned " + role + " '" + name + "' on " + where + " but kprof runs on cuda:" + std::to_string(gpu) +
               " (use device=\"cuda\", the current device)");
        if (!v.attr("is_contiguous")().cast<bool>())
          fail("returned " + role + " '" + name + "' not contiguous; return " + name + ".contiguous()");
        std::optional<DType> dt = tensor_dtype(v);
        if (!dt)
          fail("returned " + role + " '" + name + "' with dtype " + py::str(v.attr("dtype")).cast<std::string>() +
               ", which kprof does not support (float64/32/16, bfloat16, int/uint 8..64)");
        BufferView b;
        b.name = name;
        b.dtype = *dt;
        b.count = v.attr("numel")().cast<size_t>();
        b.ptr = reinterpret_cast<void*>(v.attr("data_ptr")().cast<uintptr_t>());
        b.is_output = role == "output";
        for (auto d : v.attr("shape")) b.shape.push_back(d.cast<int64_t>());
        buffers_.push_back(b);
        params_.push_back(name + ": " + dtype_name(b.dtype) + "[" + std::to_string(b.count) + "]" +
                          (b.is_output ? " (output)" : ""));
      } else if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v)) {
        scalars_.push_back(ScalarArg{name, v.cast<double>(), true});
        params_.push_back(name + "=" + py::str(v).cast<std::string>());
      } else if (py::isinstance<py::float_>(v)) {
        scalars_.push_back(ScalarArg{name, v.cast<double>(), false});
        params_.push_back(name + "=" + py::str(v).cast<std::string>());
      } else {
        params_.push_back(name + ": " + py_type_name(v));
      }
    }
    py_->inputs = inputs;
  }

  std::string path_;
  std::string file_;
  Implementation impl_;
  Dims dims_;
  std::unique_ptr<PyState> py_;
  std::vector<BufferView> buffers_;
  std::vector<ScalarArg> scalars_;
  std::vector<std::string> params_;  ///< "x: float32[1024]", "N=1024", "mode: str" for signature()
};

}  // namespace

std::unique_ptr<KernelInstance> load_py_kernel(const std::string& path, Implementation impl, const Dims& dims) {
  if (!is_python_impl(impl))
    throw usage_error("load_py_kernel: " + implementation_name(impl) + " is not a Python implementation",
                      "use --implementation " + language_names_of(FileKind::PythonModule) + " for a .py kernel");
  ensure_python();
  py::gil_scoped_acquire gil;
  auto state = std::make_unique<PyState>();
  state->module = load_module_by_path(path, "kernel");
  for (const char* fn : {"setup", "run_kernel"}) {
    std::string sig = std::string(fn) + "(**kwargs)";
    if (!py::hasattr(state->module, fn))
      throw usage_error(path + " defines no function `" + fn + "`",
                        "a " + implementation_name(impl) +
                            " kernel module must define setup(**kwargs) and "
                            "run_kernel(**kwargs) (docs/REFERENCE.md in the kprof source)");
    py::object f = state->module.attr(fn);
    if (!PyCallable_Check(f.ptr()))
      throw usage_error(path + ": `" + fn + "` is " + py_a_type(f) + ", not a function",
                        "a " + implementation_name(impl) + " kernel module must define `def " + sig + ":`");
    (std::string(fn) == "setup" ? state->setup : state->run_kernel) = f;
  }
  auto kernel = std::make_unique<PyKernel>(path, impl, dims, std::move(state));
  return kernel;
}

}  // namespace kprof
