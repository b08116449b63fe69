// The one interface every stage (verify, timing, ncu runner) uses to drive a kernel, whatever its
// implementation: a cuda-cpp/cutlass .so called through libffi (kernel/so_kernel.hpp) or a
// triton/cute-dsl Python module (kernel/py_kernel.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "device/buffer_view.hpp"

namespace pybind11 {
class dict;
}

namespace kprof {

/// A kernel ready to run on the current GPU.
class KernelInstance {
 public:
  virtual ~KernelInstance() = default;

  /// Which of the four implementations this is.
  virtual Implementation implementation() const = 0;

  /// Human-readable call signature for reports, e.g. "solve(const float* A, float* C, int N)".
  virtual std::string signature() const = 0;

  /// Creates fresh buffers whose contents derive from `seed` only (inputs and outputs seeded
  /// random: normal(0,1) for floats). Two prepare() calls with one seed give identical bytes.
  /// Throws Error (exit 2) for bad dimensions / sizes, (exit 1) when memory runs out.
  virtual void prepare(uint64_t seed) = 0;

  /// The arrays of the current preparation, inputs and outputs, in parameter order.
  virtual std::vector<BufferView> buffers() const = 0;

  /// The scalar arguments, in parameter order.
  virtual std::vector<ScalarArg> scalars() const = 0;

  /// One call of the kernel (solve(...) or run_kernel(**inputs)) on the current buffers. Returns
  /// when the host call returns; GPU work may still be running. Throws Error when the host call
  /// itself fails (a Python exception: exit 2 with the Python error line).
  virtual void call() = 0;

  /// The launch error the kernel's OWN CUDA runtime recorded for the calling thread (and clears
  /// it), as a cudaError_t value; 0 when none or unknown. An nvcc-built .so links its own static
  /// cudart, so an invalid launch configuration inside solve() is invisible to kprof's
  /// cudaGetLastError(): it must be read through the library's cudaGetLastError. Called on the
  /// thread that made the call, right after it.
  virtual int take_launch_error() { return 0; }

  /// Writes into guard zones since the last prepare()/reset_guards(); empty when the
  /// implementation does not own its buffers (Python kernels) or nothing was hit.
  virtual std::vector<GuardViolation> check_guards() const { return {}; }

  /// Re-arms the guard zones (after a check, before the next call).
  virtual void reset_guards() {}

  /// True when the buffers carry guard zones (so "no violation" means something).
  virtual bool has_guards() const { return false; }

  /// Adds the kwargs beyond tensors and scalars that the reference should receive (Python
  /// kernels: the non-tensor values setup() returned). Default: none.
  virtual void extend_reference_kwargs(pybind11::dict& kwargs) const { (void)kwargs; }
};

}  // namespace kprof
