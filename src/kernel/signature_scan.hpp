// Finding every declaration named `solve` at namespace scope in C++/CUDA tokens, with what decides
// whether the .so exports it as the plain symbol `solve`: its language linkage (extern "C"), its
// storage (static, an unnamed namespace), its namespace and its CUDA execution space.
#pragma once

#include <string>
#include <vector>

#include "kernel/signature_lexer.hpp"

namespace kprof {

/// One `solve(` declared or defined at namespace scope (not in a function or class body, not a
/// call, not a longer name, not a template).
struct SolveDecl {
  size_t open = 0;            ///< token index of '('
  size_t close = 0;           ///< token index of the matching ')'
  int line = 0;               ///< line of `solve` (in `file`)
  int file = 0;               ///< token file index (signature_lexer.hpp)
  bool definition = false;    ///< a body follows (`{`), not `;`
  bool c_linkage = false;     ///< extern "C" (on the declaration or an enclosing extern "C" block)
  bool internal = false;      ///< static, or inside an unnamed namespace: not exported
  std::string ns;             ///< enclosing named namespaces, "a::b"; "" = global
  bool global_fn = false;     ///< __global__ (a kernel)
  bool device_only = false;   ///< __device__ without __host__: device code only
  bool returns_void = false;  ///< the return type is plain void
};

/// Every namespace-scope `solve(` of `tokens`, in order. Throws Error (exit 2) only for a
/// `solve(` without its closing ')'.
std::vector<SolveDecl> find_solve_decls(const std::vector<Token>& tokens);

/// `tokens` without `__attribute__((...))`, `__declspec(...)`, `alignas(...)`, `__align__(...)`
/// and `[[...]]` groups.
std::vector<Token> drop_attributes(const std::vector<Token>& tokens);

}  // namespace kprof
