// Calling kprof's own Python code (not a user's file) in the embedded interpreter with JSON in and
// JSON out, so stages above src/python (the .ncu-rep reader in src/ncu) use Python without
// pybind11 types. The interpreter starts on first use (ensure_python); PyTorch is never imported
// here, so this stays cheap for cuda-cpp kernels.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kprof {

/// Runs `function` of the module `module_name`, whose Python `source` is compiled once per process
/// (later calls with the same name reuse it), with `arg` converted to Python (json.loads) and
/// returns the function's result converted back (json.dumps; objects json cannot write become
/// strings). Starts Python if needed. Throws Error (exit 1) naming `module_name.function` with the
/// Python exception ("Type: message") when the source or the call raises, and what Python start-up
/// throws (interpreter.hpp ensure_python).
nlohmann::json call_embedded_python(const std::string& module_name, const char* source, const std::string& function,
                                    const nlohmann::json& arg);

}  // namespace kprof
