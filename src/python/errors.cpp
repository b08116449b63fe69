#include "python/errors.hpp"

#include <atomic>
#include <cstdlib>

#include "python/py_internal.hpp"
#include "core/settings.hpp"

namespace kprof {

namespace {

std::atomic<int>& traceback_flag() {
  static std::atomic<int> flag{settings().py_traceback ? 1 : 0};
  return flag;
}

}  // namespace

bool is_gpu_fault_message(const std::string& text) {
  // torch: "CUDA error: an illegal memory access was encountered"; Triton: "Triton Error [CUDA]:
  // ..."; cuda-python / CuTe DSL: "CUDA_ERROR_ILLEGAL_ADDRESS".
  for (const char* mark : {"CUDA error", "Triton Error [CUDA]", "CUDA_ERROR_", "illegal memory access"})
    if (text.find(mark) != std::string::npos) return true;
  return false;
}

void set_python_tracebacks(bool on) { traceback_flag().store(on ? 1 : 0); }

bool python_tracebacks() { return traceback_flag().load() != 0; }

std::string describe_python_error(const py::error_already_set& e, const std::string& user_file) {
  try {
    py::object value = e.value();
    py::object trace = e.trace();
    if (!value) return "unknown Python error";
    if (!trace) trace = py::none();
    py::object text = kprof_helpers().attr("describe")(value, trace, user_file, python_tracebacks());
    return text.cast<std::string>();
  } catch (const py::error_already_set&) {
    // The description itself failed (should not happen): fall back to pybind11's text.
    return e.what();
  } catch (const py::cast_error&) {
    return e.what();
  }
}

void throw_python_error(const py::error_already_set& e, const std::string& user_file, const std::string& context,
                        const std::string& hint, ExitCode code) {
  std::string text = describe_python_error(e, user_file);
  if (is_gpu_fault_message(text))
    throw check_failed(context + ": " + text,
                       "the GPU reported a fault (illegal address, invalid launch, ...); with "
                       "CUDA_LAUNCH_BLOCKING=1 the error points at the launch that caused it");
  throw Error(code, context + ": " + text, hint);
}

}  // namespace kprof
