// The one interface every stage (verify, timing, ncu runner) uses to drive a kernel, whatever its
// implementation: a cuda-cpp/cutlass .so called through libffi (kernel/so_kernel.hpp) or a
// triton/cute-dsl Python module (python/py_kernel.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/implementation.hpp"

namespace pybind11 { class dict; }

namespace kprof {

/// One named device array of the current preparation. `ptr` is device memory of
/// `count * dtype_size(dtype)` bytes; valid until the next prepare() or destruction.
struct BufferView {
  std::string name;
  DType dtype = DType::F32;
  size_t count = 0;
  void* ptr = nullptr;
  bool is_output = false;  ///< written by the kernel (compared against the reference)
  /// The tensor's shape for a Python kernel (setup() may return 2-D tensors: the reference sees
  /// its copies in that shape); empty = flat 1-D of `count` (solve()'s pointers).
  std::vector<int64_t> shape;
  /// Its element count came from the seed's sizing rule (not --size, --ptr-size or setup()): it
  /// may be larger than the kernel uses, which the time bound says (analysis/bound.hpp).
  bool sized_by_rule = false;
};

/// A scalar argument (a dimension such as N, or a float parameter such as alpha).
struct ScalarArg {
  std::string name;
  double value = 0;
  bool is_int = true;
};

/// A write outside a buffer, found in its guard zone after a call.
struct GuardViolation {
  std::string buffer;       ///< buffer name
  bool before = false;      ///< true: in the zone before the buffer (underflow), false: after it
  size_t first_offset = 0;  ///< bytes from the buffer's start (after) or end of the front zone (before)
  size_t bytes_changed = 0; ///< how many guard bytes differ from the pattern
};

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
