// The parsed `extern "C" void solve(...)` signature of a cuda-cpp / cutlass kernel.
#pragma once

#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace kprof {

/// One parameter of solve(). Pointers are device arrays: `const` ones are inputs, the others
/// outputs (possibly read too). Non-pointers are scalars given on the command line like dimensions.
struct Param {
  std::string name;          ///< parameter name as written ("A", "N")
  std::string type_text;     ///< the type as written, normalised ("const float*", "int")
  DType dtype = DType::F32;  ///< element type (pointee for pointers)
  bool is_pointer = false;
  bool is_const = false;  ///< pointee is const (pointers only)
};

/// The whole signature, parameters in order, and where it was read.
struct Signature {
  std::vector<Param> params;
  std::string file;                ///< file of the definition ("" = the text parsed, without line markers)
  int line = 0;                    ///< its line in `file`
  std::vector<std::string> notes;  ///< what the reading could not settle (several definitions: the first is read)
  /// "solve(const float* A, float* C, int N)".
  std::string to_string() const;
};

/// Finds the `solve` the .so exports and parses its parameters: comments stripped, multi-line,
/// `const`, `__restrict__`, pointer to float, double, half / __half, __nv_bfloat16, int8/16/32/64 and
/// unsigned, int, long, size_t, unsigned, int64_t, float/double scalars.
/// Only a host function with C linkage counts (`extern "C"` on it, an enclosing `extern "C" {`
/// block, or an earlier `extern "C"` declaration with the same parameter types); C++ overloads,
/// functions in named or unnamed namespaces, `static` and `__device__` functions, templates,
/// calls and longer names (solve_helper) are not it. The definition wins over declarations.
/// Parameter types may use aliases declared in the text (`typedef float real;`, `using real =
/// float;`, chosen by #ifdef when `preprocessed`).
/// `text` is the source as written (preprocessor branches read as text: only `#if 0` is skipped;
/// line splices joined) or, with `preprocessed`, nvcc's host preprocessing of it (line markers give
/// `file` and `line`; system headers skipped).
/// Throws Error (exit 2): no C-linkage solve (naming the ones ignored and why); a `solve` at global
/// namespace without extern "C" (its symbol is the mangled C++ name, which the message gives); an
/// extern "C" solve that is __global__ / __device__ or does not return void; an unsupported
/// parameter type (naming the parameter and listing the supported types); an unnamed parameter.
Signature parse_solve_signature(const std::string& text, bool preprocessed = false);

/// The Itanium C++ ABI name g++ gives `void solve(params)` at global namespace, e.g.
/// "_Z5solvePKfS0_Pfi" for (const float*, const float*, float*, int); "" when a type has no
/// known code. Used to tell the user which symbol a solve without extern "C" became.
std::string mangled_solve_name(const std::vector<Param>& params);

}  // namespace kprof
