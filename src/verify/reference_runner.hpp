// What the correctness check needs from a reference implementation. The real one is ref.py in
// the embedded Python (python/reference.hpp); tests can supply their own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "buffers/host_array.hpp"
#include "pipeline/kernel_instance.hpp"

namespace kprof {

/// A kprof-owned device copy of one buffer's pre-call contents, handed to the reference.
struct RefTensorArg {
  std::string name;
  DType dtype = DType::F32;
  size_t count = 0;
  void* device_ptr = nullptr;
  bool is_output = false;
  std::vector<int64_t> shape;  ///< BufferView::shape (empty: flat)
};

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
  /// `scalars`, plus whatever `inst` adds (KernelInstance::extend_reference_kwargs). Returns one
  /// HostArray per output tensor (RefTensorArg::is_output), in the order of `tensors`. Throws Error (exit 2) when the
  /// reference fails, with its error line.
  virtual std::vector<HostArray> run(const std::vector<RefTensorArg>& tensors, const std::vector<ScalarArg>& scalars,
                                     const KernelInstance& inst) = 0;
};

}  // namespace kprof
