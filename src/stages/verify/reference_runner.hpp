// What the correctness check needs from a reference implementation. The real one is ref.py in
// the embedded Python (stages/verify/reference.hpp); tests can supply their own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "device/host_array.hpp"
#include "kernel/kernel_instance.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {

/// A kprof-owned device copy of one buffer's pre-call contents, handed to the reference.
struct RefTensorArg {
  std::string name;
  DType dtype = DType::F32;
  size_t count = 0;
  void* device_ptr = nullptr;
  bool is_output = false;
  std::vector<int64_t> shape;   ///< BufferView::shape (empty: flat)
  bool kernel_changed = false;  ///< the kernel's first call changed this buffer (bit-wise)
};

/// What the reference produced and how it was called (stages/verify/reference.hpp ReferenceCall).
using ReferenceOutputs = ReferenceCall;

/// Re-fills the reference's copies with the pre-call contents (for a second attempt).
using RestoreCopies = std::function<void()>;

/// A loaded reference.
class ReferenceRunner {
 public:
  virtual ~ReferenceRunner() = default;
  /// The reference's own tolerances (ref.py's module-level atol / rtol), if it sets them.
  virtual std::optional<double> atol() const = 0;
  virtual std::optional<double> rtol() const = 0;
  /// Where it came from (ref.py's path), for reports.
  virtual std::string origin() const = 0;
  /// Computes the expected outputs from `tensors` (copies; the reference may modify them) and
  /// `scalars`, plus whatever `inst` adds (KernelInstance::extend_reference_kwargs). `restore`
  /// re-fills the copies with the pre-call contents when a second attempt needs them (the
  /// shaped-outputs retry, docs/REFERENCE.md). Throws Error (exit 2) when the reference fails,
  /// with its error line.
  virtual ReferenceOutputs run(const std::vector<RefTensorArg>& tensors, const std::vector<ScalarArg>& scalars,
                               const KernelInstance& inst, const RestoreCopies& restore) = 0;
};

}  // namespace kprof
