// Reading a kernel's solve() signature as nvcc compiles it: the flags the .so was built with (its
// build record) or the flags a build would use, nvcc's host preprocessing, then the parser
// (kernel/signature.hpp). Without nvcc, the source text as written, and a note saying so.
#pragma once

#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "kernel/signature.hpp"

namespace kprof {

/// Which solve() to read: the kernel, the library it becomes, and the build's flags.
struct SignatureRequest {
  std::string kernel_path;  ///< the .cu
  std::string so_path;      ///< the library that will be loaded (its build record is read)
  Implementation impl = Implementation::CudaCpp;
  std::string arch;                     ///< --arch ("" = the GPU's own, else sm_90)
  std::vector<std::string> nvcc_flags;  ///< the user's nvcc flags (`-- flags`)
  bool build = false;                   ///< --build: the .so is rebuilt when stale (its record then is not used)
};

/// The signature and how it was read.
struct SignatureReading {
  Signature signature;
  bool preprocessed = false;  ///< read from nvcc's host preprocessing (false: the source text)
  /// One line for the user: where solve() is, which #if branch, which flags, the cost, e.g.
  /// "solve() at k.cu:12 (in the #else branch (line 9) of `#ifdef USE_DOUBLE` (line 5)), read as
  /// nvcc preprocesses it for the host with -arch=sm_90 -DUSE_DOUBLE (recorded with k.so); 0.41 s".
  std::string how;
  std::vector<std::string> notes;  ///< what the reader could not do (no nvcc, preprocessing failed)
};

/// The nvcc flags kprof build adds beyond its fixed ones (-O3 -std=c++17 -shared -Xcompiler
/// -fPIC -lineinfo) and the output / source: "-arch=sm_90 -DUSE_DOUBLE". For messages.
std::string distinctive_flags(const std::vector<std::string>& nvcc_argv);

/// "in the `#else` branch (line 9) of `#ifdef USE_DOUBLE` (line 5)" for `line` of `source`
/// (innermost group last, joined by ", "); "" when the line is in no conditional group.
std::string enclosing_branches(const std::string& source, int line);

/// Reads solve() for `req` (see the file comment). The flags: the .so's build record when it
/// describes the current .so and the source (not with --build on a stale .so), else the line
/// `kprof build` would run with req.arch and req.nvcc_flags. Memoised per process (kernel,
/// flags, source text), so check/profile/run pay for the preprocessing once.
/// Throws Error (exit 2) from the parser (kernel/signature.hpp) or for an unreadable .cu.
SignatureReading read_solve_signature(const SignatureRequest& req);

}  // namespace kprof
