// What a kernel's arguments are on the device: named device arrays (BufferView), scalar
// arguments, and writes found outside a buffer (GuardViolation). Plain values shared by the
// device layer (buffers, guard zones) and every layer above it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

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
  std::string buffer;        ///< buffer name
  bool before = false;       ///< true: in the zone before the buffer (underflow), false: after it
  size_t first_offset = 0;   ///< bytes from the buffer's start (after) or end of the front zone (before)
  size_t bytes_changed = 0;  ///< how many guard bytes differ from the pattern
};

}  // namespace kprof
