// The work a kernel's algorithm needs, as ref.py declares it: optional functions beside
// `reference`, called with the dimensions (docs/REFERENCE.md "Declaring the work"):
//
//     def flops(M, N, K, **kw):        return 2 * M * N * K          # FLOPs of the algorithm
//     def bytes_moved(M, N, K, **kw):  return 2 * (M*K + K*N + M*N)  # least bytes it must move
//
// kprof's time bound (stages/analysis/bound.hpp) uses them in place of its own byte count from the
// buffers and adds the compute term.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "stages/verify/reference.hpp"

namespace kprof {

/// What ref.py declares. Unset when it does not define the function.
struct DeclaredWork {
  std::optional<double> flops;  ///< flops(**dims)
  std::optional<double> bytes;  ///< bytes_moved(**dims)
  std::string flops_how;        ///< "ref.py flops(M=4096, N=4096, K=4096) = 1.37e+11"
  std::string bytes_how;
};

/// True when the source of `ref_path` defines `flops` or `bytes_moved` at module level (a text
/// check, no Python started), so a ref.py without them is not imported for its work.
bool declares_work(const std::string& ref_path);

/// Calls flops(**dims) / bytes_moved(**dims) of the loaded `ref` where defined; dims keep their
/// types (int dimensions as int). Throws Error (exit 2) when a function raises (the Python error
/// line) or returns something that is not a number >= 0.
DeclaredWork declared_work(const ReferenceModule& ref, const std::map<std::string, double>& int_dims,
                           const std::map<std::string, double>& float_dims);

/// declared_work of ReferenceModule::shared(ref_path): the module the check imported, so ref.py
/// is imported once per process. Returns an empty DeclaredWork when declares_work() is false.
/// Throws Error (exit 2) as above and as ReferenceModule::load (a broken ref.py, no `reference`).
DeclaredWork declared_work(const std::string& ref_path, const std::map<std::string, double>& int_dims,
                           const std::map<std::string, double>& float_dims);

}  // namespace kprof
