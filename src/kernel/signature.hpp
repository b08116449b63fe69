// The parsed `extern "C" void solve(...)` signature of a cuda-cpp / cutlass kernel.
#pragma once

#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace kprof {

/// One parameter of solve(). Pointers are device arrays: `const` ones are inputs, the others
/// outputs (possibly read too). Non-pointers are scalars given on the command line like dimensions.
struct Param {
  std::string name;       ///< parameter name as written ("A", "N")
  std::string type_text;  ///< the type as written, normalised ("const float*", "int")
  DType dtype = DType::F32;  ///< element type (pointee for pointers)
  bool is_pointer = false;
  bool is_const = false;     ///< pointee is const (pointers only)
};

/// The whole signature, parameters in order.
struct Signature {
  std::vector<Param> params;
  /// "solve(const float* A, float* C, int N)".
  std::string to_string() const;
};

/// Finds the definition (or declaration) of `extern "C" void solve(...)` in CUDA C++ source text
/// and parses its parameters: comments stripped, multi-line, `const`, `__restrict__`,
/// pointer to float, double, half / __half, __nv_bfloat16, int8/16/32/64 and unsigned,
/// int, long, size_t, unsigned, int64_t, float/double scalars.
/// `solve` inside a comment or a longer name (solve_helper) is not it.
/// Throws Error (exit 2): no solve found; an unsupported type (naming the parameter and listing
/// the supported types); an unnamed parameter.
Signature parse_solve_signature(const std::string& source);

}  // namespace kprof
