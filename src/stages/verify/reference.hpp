// ref.py: the user's Python reference, `reference(**kwargs)`, run in kprof's embedded Python on
// PyTorch tensors that view kprof's device buffers (no copy). See docs/REFERENCE.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/host_array.hpp"
#include "kernel/kernel_instance.hpp"

namespace kprof {

/// Checks ref.py without running it (Python's ast, no import of torch or of ref.py's imports),
/// so a broken reference is an input error before any GPU work. Throws Error (exit 2): a syntax
/// error (path:line, message, the line) or no `reference` bound anywhere in the file (a star
/// import counts as possibly providing it). Returns without checking when Python cannot start
/// (`kprof env` and the later load report that).
void check_reference_source(const std::string& path);

/// How PyTorch was set to compute float32 matrix products and convolutions while the reference
/// ran (read right after it): TF32 there gives the reference itself a 2^-11 unit roundoff.
struct ReferencePrecision {
  bool known = false;        ///< false: torch was not loaded, nothing was read
  bool matmul_tf32 = false;  ///< torch.backends.cuda.matmul.allow_tf32 (or its fp32_precision == "tf32")
  bool cudnn_tf32 = false;   ///< torch.backends.cudnn.allow_tf32 (PyTorch's default is True: convolutions only)
  std::string float32_matmul_precision;  ///< torch.get_float32_matmul_precision(): highest / high / medium
  /// True when float32 matrix products ran in reduced precision (TF32 or bfloat16 passes).
  bool reduced_matmul() const {
    return matmul_tf32 || (!float32_matmul_precision.empty() && float32_matmul_precision != "highest");
  }
};

/// What one call of reference(**kwargs) produced, and how it was called.
struct ReferenceCall {
  std::vector<HostArray> outputs;  ///< one per output buffer, in buffer order
  /// One line each where the call differed from the plain one: outputs given flat (the seed's
  /// convention) or in setup()'s shapes after the flat call raised; a returned tensor matched to
  /// the one buffer the kernel changed.
  std::vector<std::string> notes;
  ReferencePrecision precision;
};

struct DeclaredWork;  // work_model.hpp

/// A loaded ref.py. Cheap to copy (shares the module). Thread-safe: every call takes the GIL.
class ReferenceModule {
 public:
  /// Loads `path` by file path (starts Python if needed; does not import torch unless ref.py does).
  /// Reads module-level `atol` / `rtol` when present.
  /// Throws Error (exit 2): missing file, not .py, an exception or syntax error while importing
  /// (the Python error with its file:line), no `reference` or `reference` not callable, `atol` /
  /// `rtol` that is not a finite number >= 0 (bool is rejected).
  static ReferenceModule load(const std::string& path);

  /// The ReferenceModule of `path` imported once per process: the first call load()s it, later
  /// calls for the same file (same canonical path, size and modification time) return that
  /// module, so the check and the work model (work_model.hpp) share one import of ref.py; a file
  /// edited since is loaded again. A failed load is not kept (it throws again next time).
  /// Throws what load() throws.
  static ReferenceModule shared(const std::string& path);

  /// The path given to load().
  const std::string& path() const { return path_; }

  /// Module-level `atol` (absolute tolerance, same unit as the outputs), when ref.py sets it.
  std::optional<double> atol() const { return atol_; }

  /// Module-level `rtol` (relative tolerance, a fraction: 1e-3 = 0.1 %), when ref.py sets it.
  std::optional<double> rtol() const { return rtol_; }

  /// Runs reference(**kwargs) and returns its outputs as host arrays, one per output buffer
  /// (BufferView::is_output), in `buffers` order, each named after its buffer and in the dtype of
  /// the tensor the reference produced (float64/32/16, bfloat16, int/uint 8..64).
  ///
  /// The first call of each size (flop_count.hpp reference_call_key) runs under PyTorch's
  /// FlopCounterMode and records the FLOPs it counts for the time bound (counted_flops); a call
  /// that raises under the mode runs once more without it (a note says so when that works).
  ///
  /// kwargs: every buffer as a CUDA tensor of its dtype over `ptr` (no copy: the caller owns the
  /// memory and gives the reference its own copies), every scalar (int as int, float as float),
  /// then whatever `kernel->extend_reference_kwargs` adds (Python kernels: the exact non-tensor
  /// values setup() returned). Shapes (docs/REFERENCE.md, "Shapes"): solve() buffers are 1-D; a
  /// Python kernel's inputs keep setup()'s shapes and its outputs of two or more dimensions are
  /// first given as flat 1-D views (the seed's convention); when that call raises, `restore()`
  /// re-fills the copies and the reference is called once more with the outputs in their shapes
  /// (a note says so, and later calls start with the convention that worked).
  ///
  /// Outputs (docs/REFERENCE.md, "What reference returns"): None -> the output tensors it was
  /// given, modified in place; a tensor sharing storage with a given output -> the same (written
  /// in place and returned); a new tensor -> the single output, or with several outputs the one
  /// of matching size that the kernel changed (`kernel_changed`, one flag per buffer; otherwise an
  /// error asking for a dict); a dict -> output name -> tensor (outputs it omits: as given);
  /// a tuple/list -> the outputs in order. Each output is flattened and must have as many
  /// elements as its buffer. GPU work is synchronised before the copy to the host.
  ///
  /// Throws Error (exit 2): an exception inside reference (the Python error line, both calls'
  /// when the shaped retry raised too), a return value of the wrong structure, a missing output,
  /// an element-count mismatch (both counts), an unsupported dtype. (exit 1): torch missing, a
  /// GPU fault while copying.
  ReferenceCall call(const std::vector<BufferView>& buffers, const std::vector<ScalarArg>& scalars,
                     const KernelInstance* kernel = nullptr, const std::vector<uint8_t>& kernel_changed = {},
                     const std::function<void()>& restore = {}) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::string path_;
  std::optional<double> atol_;
  std::optional<double> rtol_;

  friend DeclaredWork declared_work(const ReferenceModule& ref, const std::map<std::string, double>& int_dims,
                                    const std::map<std::string, double>& float_dims);
};

}  // namespace kprof
