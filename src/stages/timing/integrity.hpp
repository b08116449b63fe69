// The timing's integrity checks (pure): did the timed calls time the user's own work on fresh
// inputs? From a TimingResult: the calls launched kernels, nothing ran after a call returned or
// outside every call, not every kernel is a library's (cuBLAS, cuDNN, PyTorch), inputs were
// rotated, identical inputs were not faster than rotated ones (memoization). The flow adds the
// check of the last timed call's outputs against the reference (it owns the reference).
#pragma once

#include <string>
#include <vector>

namespace kprof {

struct KernelTimeResult;  // stages/timing/timing_values.hpp
struct InputRotation;
struct MemoCheck;

/// One check's outcome.
enum class IntegrityStatus { Pass, Warn, Fail, NotRun };

/// "pass", "warn", "fail", "not_run".
std::string integrity_status_id(IntegrityStatus s);

struct IntegrityCheck {
  std::string name;  ///< "kernels launched", "work after return", "library-only kernels", ...
  IntegrityStatus status = IntegrityStatus::NotRun;
  std::string detail;  ///< the evidence, one sentence
};

/// Every check and the verdict: the worst status among the checks that ran (Fail > Warn > Pass).
struct Integrity {
  std::vector<IntegrityCheck> checks;
  IntegrityStatus verdict = IntegrityStatus::NotRun;
  /// Recomputes `verdict` from `checks`.
  void settle();
};

/// True when `name` (demangled) is a kernel of NVIDIA's or PyTorch's libraries (cuBLAS, cuBLASLt,
/// cuDNN, cuFFT, PyTorch's ATen, NCCL, CUB device-wide algorithms), by its well-known prefixes.
bool is_library_kernel(const std::string& name);

/// The checks the timing answers alone (no reference): from the kernel pass `k` (kernels launched,
/// work after return, library-only kernels), the input `rotation` and the memoization check `m`.
Integrity timing_integrity(const KernelTimeResult& k, const InputRotation& rotation, const MemoCheck& m);

}  // namespace kprof
