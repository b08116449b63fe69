#include "stages/verify/reference.hpp"

#include <fmt/format.h>

#include <pybind11/pybind11.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/error.hpp"
#include "python/errors.hpp"
#include "python/interpreter.hpp"
#include "python/py_internal.hpp"
#include "stages/verify/flop_count_py.hpp"
#include "stages/verify/reference_state.hpp"
#include "kernel/source_check.hpp"

namespace kprof {

namespace {

/// The hint for a ref.py without `reference`, found by reading it (check_reference_source) or by
/// importing it (ReferenceModule::load).
const char* kNoReferenceHint =
    "add `def reference(**kwargs):` (it receives the kernel's buffers as tensors and its scalars by name; "
    "see docs/REFERENCE.md in the kprof source)";

const char* kReturnHint =
    "reference may fill the output tensors it was given (and return None or one of them), return the one "
    "output tensor, a dict {output name: tensor}, or a tuple of tensors in output order (docs/REFERENCE.md in the "
    "kprof source)";

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

/// True when tensor `a` views the memory of tensor `b` (the same storage).
bool same_storage(py::handle a, py::handle b) { return kprof_helpers().attr("same_storage")(a, b).cast<bool>(); }

/// The index of the given output whose storage `t` shares, or -1.
int given_index(py::handle t, const std::vector<py::object>& given) {
  for (size_t i = 0; i < given.size(); ++i)
    if (same_storage(t, given[i])) return static_cast<int>(i);
  return -1;
}

/// One returned NEW tensor for several outputs: the one output of the same element count that
/// the kernel changed takes it (the others stay as given); anything else asks for a dict.
std::vector<py::object> match_new_tensor(const py::object& ret, const std::vector<const BufferView*>& outputs,
                                         const std::vector<py::object>& given, const std::vector<bool>& changed,
                                         std::vector<std::string>& notes) {
  const size_t numel = ret.attr("numel")().cast<size_t>();
  std::vector<size_t> fit;
  std::string changed_names;
  size_t n_changed = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (changed[i]) changed_names += (n_changed++ ? ", " : "") + outputs[i]->name;
    if (changed[i] && outputs[i]->count == numel) fit.push_back(i);
  }
  if (fit.size() != 1)
    throw usage_error(fmt::format("reference returned one new tensor ({} elements) but the kernel has {} output "
                                  "buffers ({}), {} of them changed by the kernel ({}): kprof cannot tell which "
                                  "buffer it is",
                                  numel, outputs.size(), join_names(outputs), n_changed,
                                  changed_names.empty() ? "none" : changed_names),
                      "return a dict naming it, e.g. `return {\"" + outputs.back()->name +
                          "\": result}`, or fill the output in place; declare inputs `const` in solve()");
  std::vector<py::object> result = given;
  result[fit[0]] = ret;
  notes.push_back("reference returned one new tensor; it was compared with '" + outputs[fit[0]]->name +
                  "', the only non-const buffer of its size that the kernel changed (the others as the reference "
                  "left them)");
  return result;
}

// The outputs reference produced, in `outputs` order (see ReferenceModule::call).
std::vector<py::object> collect_outputs(const py::object& ret, const std::vector<const BufferView*>& outputs,
                                        const std::vector<py::object>& given, const std::vector<bool>& changed,
                                        std::vector<std::string>& notes) {
  const size_t n = outputs.size();
  if (ret.is_none()) return given;
  if (is_tensor(ret)) {
    if (given_index(ret, given) >= 0) return given;  // written in place and returned
    if (n == 1) return {ret};
    return match_new_tensor(ret, outputs, given, changed, notes);
  }
  std::vector<py::object> result;
  if (py::isinstance<py::dict>(ret)) {
    py::dict d = py::reinterpret_borrow<py::dict>(ret);
    std::vector<std::string> omitted;
    for (size_t i = 0; i < n; ++i) {
      bool has = d.contains(py::str(outputs[i]->name));
      result.push_back(has ? py::object(d[py::str(outputs[i]->name)]) : given[i]);
      if (!has) omitted.push_back(outputs[i]->name);
    }
    if (omitted.size() == n) {
      std::string keys;
      for (auto item : d) keys += (keys.empty() ? "" : ", ") + py::str(item.first).cast<std::string>();
      throw usage_error("reference returned a dict without any output (its keys: " + (keys.empty() ? "none" : keys) +
                            "; outputs: " + join_names(outputs) + ")",
                        kReturnHint);
    }
    if (!omitted.empty()) {
      std::string names;
      for (const auto& o : omitted) names += (names.empty() ? "" : ", ") + o;
      notes.push_back("reference's dict omits " + names + ": compared as the reference left them (its inputs)");
    }
    return result;
  }
  if (py::isinstance<py::tuple>(ret) || py::isinstance<py::list>(ret)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(ret);
    bool all_given = true;
    for (size_t i = 0; i < seq.size(); ++i)
      all_given = all_given && is_tensor(seq[i]) && given_index(seq[i], given) >= 0;
    if (all_given) return given;  // returned (some of) the outputs it wrote in place
    if (seq.size() == 1 && is_tensor(seq[0])) return collect_outputs(seq[0], outputs, given, changed, notes);
    if (seq.size() != n)
      throw usage_error("reference returned " + std::to_string(seq.size()) + " values but the kernel has " +
                            std::to_string(n) + " output buffers (" + join_names(outputs) + ")",
                        "return a dict {name: tensor} naming each result, or fill the outputs in place; declare "
                        "inputs `const` in solve() (docs/REFERENCE.md in the kprof source)");
    for (size_t i = 0; i < n; ++i) result.push_back(seq[i]);
    return result;
  }
  throw usage_error("reference returned " + py_a_type(ret) +
                        "; expected None, a tensor, a dict or a tuple (outputs: " + join_names(outputs) + ")",
                    kReturnHint);
}

/// How PyTorch computes float32 matrix products now (after the reference ran).
ReferencePrecision read_precision() {
  ReferencePrecision p;
  py::object t = kprof_helpers().attr("torch_precision")();
  if (t.is_none()) return p;
  auto tup = t.cast<py::tuple>();
  p.known = true;
  p.matmul_tf32 = tup[0].cast<bool>();
  p.cudnn_tf32 = tup[1].cast<bool>();
  p.float32_matmul_precision = tup[2].cast<std::string>();
  return p;
}

/// The kwargs of one reference call: every buffer as a tensor (inputs in their shapes, outputs
/// flat unless `shaped_outputs`), the scalars, the kernel's extra kwargs. Fills `given` with the
/// output tensors handed over, in buffer order.
py::dict reference_kwargs(const std::vector<BufferView>& buffers, const std::vector<ScalarArg>& scalars,
                          const KernelInstance* kernel, bool shaped_outputs, std::vector<py::object>& given) {
  py::dict kwargs;
  given.clear();
  for (const BufferView& b : buffers) {
    py::object t = device_tensor(b.ptr, b.count, b.dtype);
    if (b.shape.size() > 1 && (!b.is_output || shaped_outputs)) {
      py::tuple shape(b.shape.size());
      for (size_t d = 0; d < b.shape.size(); ++d) shape[d] = py::int_(b.shape[d]);
      t = t.attr("view")(shape);
    }
    kwargs[py::str(b.name)] = t;
    if (b.is_output) given.push_back(t);
  }
  for (const ScalarArg& s : scalars)
    kwargs[py::str(s.name)] =
        s.is_int ? py::object(py::int_(static_cast<long long>(s.value))) : py::object(py::float_(s.value));
  if (kernel) kernel->extend_reference_kwargs(kwargs);
  return kwargs;
}

/// fn(**kwargs), its FLOPs counted by FlopCounterMode the first time call `key` runs (recorded for
/// `path`: flop_count.hpp). A call that raises under the counter runs once more without it (after
/// `restore`, when given); when that one works the counter is blamed, a note says so and counting
/// stops for this module; when it raises too, its exception propagates (the reference's own).
py::object invoke_reference(py::object& fn, const std::string& file, FlopCountState& fc, const py::dict& kwargs,
                            const std::string& path, const std::string& key, const std::function<void()>& restore,
                            std::vector<std::string>& notes) {
  if (!fc.enabled || fc.counted.count(key)) return fn(**kwargs);
  CountedFlops counted;
  py::object ret;
  try {
    ret = call_counting_flops(fn, kwargs, counted);
  } catch (const py::error_already_set& e) {
    const std::string first = describe_python_error(e, file);
    if (is_gpu_fault_message(first)) throw;
    torch_synchronize("the reference's GPU work failed");
    if (restore) restore();  // the failed call may have written into the copies
    ret = fn(**kwargs);
    fc.enabled = false;
    notes.push_back("reference raised under PyTorch's FlopCounterMode (" + first +
                    ") and worked without it: its FLOPs are not counted");
    record_counted_flops(path, key, CountedFlops{std::nullopt, {}, "reference raised under FlopCounterMode"});
    return ret;
  }
  fc.counted.insert(key);
  record_counted_flops(path, key, std::move(counted));
  return ret;
}

std::string shaped_names(const std::vector<BufferView>& buffers) {
  std::string s;
  for (const BufferView& b : buffers)
    if (b.is_output && b.shape.size() > 1) s += (s.empty() ? "" : ", ") + b.name;
  return s;
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
  if (!py::hasattr(m, "reference")) throw usage_error(path + " defines no function `reference`", kNoReferenceHint);
  py::object fn = m.attr("reference");
  if (!PyCallable_Check(fn.ptr()))
    throw usage_error(path + ": `reference` is " + py_a_type(fn) + ", not a function",
                      "define `def reference(**kwargs):`");
  r.atol_ = read_tolerance(m, "atol", path);
  r.rtol_ = read_tolerance(m, "rtol", path);
  r.state_ = std::shared_ptr<State>(new State{m, fn, m.attr("__file__").cast<std::string>(), false, {}}, [](State* s) {
    py::gil_scoped_acquire release_gil;
    delete s;
  });
  return r;
}

ReferenceModule ReferenceModule::shared(const std::string& path) {
  struct Entry {
    std::filesystem::file_time_type mtime;
    std::uintmax_t size = 0;
    ReferenceModule module;
  };
  static std::mutex mu;
  // Never destroyed: a module's State takes the GIL when it goes, which must not happen at exit.
  static auto* loaded = new std::map<std::string, Entry>();
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(path, ec).string();
  auto mtime = std::filesystem::last_write_time(path, ec);
  auto size = ec ? 0 : std::filesystem::file_size(path, ec);
  if (ec) return load(path);  // missing or unreadable: load() says what is wrong
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded->find(key);
  if (it != loaded->end() && it->second.mtime == mtime && it->second.size == size) return it->second.module;
  ReferenceModule m = load(path);
  (*loaded)[key] = Entry{mtime, size, m};
  return m;
}

ReferenceCall ReferenceModule::call(const std::vector<BufferView>& buffers, const std::vector<ScalarArg>& scalars,
                                    const KernelInstance* kernel, const std::vector<uint8_t>& kernel_changed,
                                    const std::function<void()>& restore) const {
  if (!state_) throw check_failed("internal: ReferenceModule used before load()");
  ensure_python();
  py::gil_scoped_acquire gil;
  const std::string& file = state_->file;
  const std::string hint = "fix " + path_ +
                           "; reference(**kwargs) gets the kernel's buffers as CUDA tensors "
                           "(1-D for solve(); a Python kernel's inputs in their shapes, its outputs flat) and its "
                           "scalars by name (docs/REFERENCE.md in the kprof source)";
  try {
    ReferenceCall out;
    std::vector<const BufferView*> outputs;
    std::vector<bool> changed;
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].is_output) {
        outputs.push_back(&buffers[i]);
        changed.push_back(i < kernel_changed.size() && kernel_changed[i]);
      }
    if (!buffers.empty()) import_torch();
    torch_use_selected_device();
    const std::string shaped_outs = shaped_names(buffers);
    bool shaped = !shaped_outs.empty() && state_->shaped_first;
    std::vector<py::object> given;
    const std::string key = reference_call_key(buffers, scalars);
    auto invoke = [&](bool shaped_outputs) {
      return invoke_reference(state_->fn, file, state_->flops,
                              reference_kwargs(buffers, scalars, kernel, shaped_outputs, given), path_, key, restore,
                              out.notes);
    };
    py::object ret;
    try {
      ret = invoke(shaped);
    } catch (const py::error_already_set& e) {
      if (shaped_outs.empty() || !restore || is_gpu_fault_message(describe_python_error(e, file)))
        throw_python_error(e, file, "reference raised an exception", hint);
      const std::string first = describe_python_error(e, file);
      torch_synchronize("the reference's GPU work failed");
      restore();  // the failed call may have written into the copies
      shaped = !shaped;
      try {
        ret = invoke(shaped);
      } catch (const py::error_already_set& e2) {
        throw_python_error(
            e2, file,
            fmt::format("reference raised an exception with the outputs {} (and with them {}: {})",
                        shaped ? "in setup()'s shapes" : "flat", shaped ? "flat" : "in setup()'s shapes", first),
            hint);
      }
      state_->shaped_first = shaped;
      out.notes.push_back(
          fmt::format("reference raised with the outputs {} ({}); called again with them {}, which worked",
                      shaped ? "flat" : "in setup()'s shapes", first, shaped ? "in setup()'s shapes" : "flat"));
    }
    if (!shaped_outs.empty())
      out.notes.push_back(shaped ? "outputs " + shaped_outs + " given to reference in setup()'s shapes"
                                 : "outputs " + shaped_outs +
                                       " given to reference as flat 1-D views (the original "
                                       "kernel-profile scripts' convention; inputs keep setup()'s shapes)");
    std::vector<py::object> results = collect_outputs(ret, outputs, given, changed, out.notes);
    torch_synchronize("the reference's GPU work failed");
    out.precision = read_precision();

    for (size_t i = 0; i < outputs.size(); ++i) {
      const BufferView& b = *outputs[i];
      std::string what = "reference output '" + b.name + "'";
      if (!is_tensor(results[i]))
        throw usage_error(what + " is " + py_a_type(results[i]) + ", not a torch.Tensor",
                          "return torch tensors (torch.as_tensor(x, device='cuda') converts other arrays)");
      size_t numel = results[i].attr("numel")().cast<size_t>();
      if (numel != b.count)
        throw usage_error(
            what + " has " + std::to_string(numel) + " elements, the buffer has " + std::to_string(b.count),
            "the reference must give one value per element of the kernel's output (compared "
            "flattened); check the shapes and the dimensions passed to kprof");
      out.outputs.push_back(tensor_to_host(b.name, results[i], what));
    }
    return out;
  } catch (const py::error_already_set& e) {
    throw_python_error(e, file, "running the reference failed", "");
  }
}

}  // namespace kprof
