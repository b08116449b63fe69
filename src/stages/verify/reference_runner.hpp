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
  /// Computes the expected outputs from `tensors` (the reference's own device copies of the
  /// kernel's buffers, same order; it may modify them), `kernel_changed` (one flag per buffer:
  /// the kernel's first call changed it bit-wise) and `scalars`, plus whatever `inst` adds (KernelInstance::extend_reference_kwargs). `restore`
  /// re-fills the copies with the pre-call contents when a second attempt needs them (the
  /// shaped-outputs retry, docs/REFERENCE.md). Throws Error (exit 2) when the reference fails,
  /// with its error line.
  virtual ReferenceOutputs run(const std::vector<BufferView>& tensors, const std::vector<uint8_t>& kernel_changed,
                               const std::vector<ScalarArg>& scalars, const KernelInstance& inst,
                               const RestoreCopies& restore) = 0;
};

}  // namespace kprof
