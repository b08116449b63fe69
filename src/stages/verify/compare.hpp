// Element-wise comparison of a kernel's output with the reference's (the seed's correctness
// statistics plus the checks other harnesses miss: NaN/Inf, never-written elements, an atol so
// large it cannot tell zero from the answer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device/host_array.hpp"
#include "core/dtype.hpp"

namespace kprof {

/// Absolute and relative tolerance: an element passes when |k - r| <= atol + rtol * |r|.
struct Tolerance {
  double atol = 1e-4;
  double rtol = 1e-3;
  std::string source;  ///< where it came from: "default for float32", "ref.py", "--atol/--rtol"
};

/// kprof's default tolerance for an output dtype (documented in README.md, "Tolerances"):
/// float32 1e-4 / 1e-3; float64 1e-8 / 1e-6; float16 1e-3 / 1e-2 (about 10 ulp of
/// half's 2^-10 epsilon); bfloat16 1e-2 / 2e-2 (bf16's epsilon is 2^-7 = 7.8e-3); integers exact.
Tolerance default_tolerance(DType dtype);

/// One element that failed.
struct Mismatch {
  size_t index = 0;
  double kernel = 0;
  double reference = 0;
};

/// What a non-const buffer turned out to be (docs/REFERENCE.md, "Inputs declared without const").
enum class BufferRole {
  Output,          ///< the reference changed it: compared element by element
  UnchangedInput,  ///< neither the kernel nor the reference changed it: an input (passes)
  WrittenInput,    ///< the reference left it unchanged but the kernel changed it (fails)
};

/// The verdict and statistics for one output buffer.
struct OutputComparison {
  std::string name;
  DType dtype = DType::F32;
  size_t count = 0;
  Tolerance tol;
  bool pass = false;
  size_t mismatches = 0;     ///< elements outside tolerance (NaN/Inf and never-written included)
  size_t nonfinite = 0;      ///< NaN/Inf in the kernel output where the reference is finite
  size_t never_written = 0;  ///< elements the kernel never wrote (see find_never_written)
  double max_abs = 0;        ///< max |k - r| over finite pairs
  size_t max_abs_index = 0;
  double mean_abs = 0;        ///< mean |k - r| over finite pairs
  double mean_rel = 0;        ///< mean |k - r| / |r| over elements with |r| > atol (others excluded)
  double ref_max_abs = 0;     ///< largest |r|
  double rms_error = 0;       ///< sqrt(mean (k - r)^2) over finite pairs
  double ref_rms = 0;         ///< sqrt(mean r^2) over finite references
  size_t nonzero_errors = 0;  ///< finite pairs with k != r
  /// max over finite pairs of |k - r| - rtol*|r|: the smallest atol that accepts every element at
  /// this rtol (<= 0: rtol alone suffices).
  double min_atol_at_rtol = 0;
  BufferRole role = BufferRole::Output;
  bool atol_dwarfs_reference = false;       ///< atol >= largest |r|: a zero output would pass
  std::vector<Mismatch> first_mismatches;   ///< up to kMaxListed, in index order
  std::vector<size_t> first_never_written;  ///< up to kMaxListed indices
  std::vector<double> kernel_preview;       ///< first 8 kernel values
  std::vector<double> reference_preview;    ///< first 8 reference values
  std::string reason;                       ///< one line: why it failed ("" when it passed)
};

/// How many mismatches / never-written indices a comparison lists.
constexpr size_t kMaxListed = 10;

/// True when kernel value `k` is acceptable for reference value `r`: a NaN reference needs NaN,
/// an infinite one the same infinity, otherwise `k` must be finite and within atol + rtol*|r|.
bool element_matches(double k, double r, const Tolerance& tol);

/// Compares `kernel` against `reference` (same element count; dtypes may differ: both are
/// compared as double). `never_written` marks elements the kernel did not write (may be empty).
/// Throws Error (exit 2) when the counts differ.
OutputComparison compare_output(const HostArray& kernel, const HostArray& reference, const Tolerance& tol,
                                const std::vector<uint8_t>& never_written = {});

/// Marks elements the kernel never wrote. A kernel call into random pre-call contents (`before`
/// -> `after`) and a second call into outputs filled with the sentinel pattern (`sentinel_after`)
/// must both leave the element bit-identical to what was there: chance cannot do both. Only
/// elements flagged in `reference_changed` count (a value the reference also leaves as it was is
/// correct when left alone); empty = all. Returns one flag per element (1 = never written).
/// Throws Error when the counts differ.
std::vector<uint8_t> find_never_written(const HostArray& before, const HostArray& after,
                                        const HostArray& sentinel_after, uint64_t sentinel_bits,
                                        const std::vector<uint8_t>& reference_changed = {});

/// One flag per element: 1 where the reference's value differs from the buffer's pre-call
/// contents (compared as values, so a float64 reference of a float32 buffer works; NaN equals
/// NaN). `changed` receives the number of such elements. Throws Error when the counts differ.
std::vector<uint8_t> reference_changes(const HostArray& before, const HostArray& reference, size_t* changed);

/// Adds to `flags` (reference_changes() of one output: the reference's first call against the
/// pre-call contents) every element that the reference also changed when it was called again with
/// its copy of the buffer holding the sentinel pattern of `buffer_dtype` (`again`: that call's
/// output; values compared, so a float64 reference of a float32 buffer works). An element counts
/// as left alone by the reference only when it was left alone in both calls: the pre-call contents
/// of an output that setup() allocated uninitialised (torch.empty) can already be the answer bit
/// for bit (torch's caching allocator hands out the block of an earlier reference result of the
/// same inputs), and one comparison would then call the output "unchanged by the reference". Returns
/// the number of flagged elements. Throws Error when the counts differ.
size_t add_sentinel_reference_changes(std::vector<uint8_t>& flags, DType buffer_dtype, const HostArray& again);

/// The verdict of one output buffer from its contents before (`pre`) and after (`post`) the kernel's
/// first call, the reference's value (`expected`), the call into sentinel-filled outputs
/// (`sentinel_out`; empty: not run) and what the reference changed (`ref_changed` flags, `ref_changes`
/// of them): neither side changed it -> BufferRole::UnchangedInput; only the kernel ->
/// BufferRole::WrittenInput ("the reference leaves 'X' unchanged (an input?) ..." when it fails);
/// the reference -> BufferRole::Output, with its never-written elements (docs/REFERENCE.md).
OutputComparison compare_buffer(const HostArray& pre, const HostArray& post, const HostArray& expected,
                                const HostArray& sentinel_out, const std::vector<uint8_t>& ref_changed,
                                size_t ref_changes, bool kernel_changed, const Tolerance& tol);

/// The sentinel bit pattern for never-written detection: a large negative value of the dtype
/// (e.g. about -1.3e30 for float32), never a NaN, so in-place kernels that read it still write.
uint64_t sentinel_bits(DType dtype);

/// Indices where `before` and `after` differ bit-wise (a `const` input the kernel modified);
/// returns the number of differing elements and fills `first` with up to kMaxListed indices.
size_t count_modified(const HostArray& before, const HostArray& after, std::vector<size_t>* first);

}  // namespace kprof
