// Python exceptions as one clear kprof message: the exception type and message plus the innermost
// traceback frame in the user's file (file:line and that source line), e.g.
//   ref.py:12 in reference: ZeroDivisionError: division by zero  ->  `return a / 0`
// A SyntaxError reports its own file:line. The full traceback is appended only in verbose mode.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "core/error.hpp"

namespace kprof {

/// Turns on/off appending Python's full traceback to error messages. Default: on when the
/// environment variable KPROF_PY_TRACEBACK is set to a non-empty value other than "0".
void set_python_tracebacks(bool on);

/// True when full tracebacks are appended (see set_python_tracebacks).
bool python_tracebacks();

/// One-line description of the exception in `e` (GIL held). Frame choice: the innermost frame
/// in `user_file` (compared by real path); else the innermost frame in the same folder that is
/// not inside site-packages; else none (just "Type: message"). `user_file` may be empty.
/// Files in the user's folder are shown by base name, others by full path.
std::string describe_python_error(const pybind11::error_already_set& e, const std::string& user_file);

/// True when a Python error text reports a GPU fault rather than a bug in the Python code:
/// torch's "CUDA error: ...", Triton's "Triton Error [CUDA]: ...", cuda-python's "CUDA_ERROR_...",
/// "illegal memory access".
bool is_gpu_fault_message(const std::string& text);

/// Throws Error(`code`, "<context>: <describe_python_error(e, user_file)>", hint). A Python
/// exception that reports a GPU fault (is_gpu_fault_message) is thrown with exit 1 whatever
/// `code` is, with a hint about the fault. GIL held.
[[noreturn]] void throw_python_error(const pybind11::error_already_set& e, const std::string& user_file,
                                     const std::string& context, const std::string& hint,
                                     ExitCode code = ExitCode::Usage);

}  // namespace kprof
