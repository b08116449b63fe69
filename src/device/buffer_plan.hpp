// The buffer plan's values: which device arrays kprof allocates, of what type and how many
// elements, and whether the kernel reads or writes them (kernel/plan.hpp builds one from a solve()
// signature; device/device_buffers.hpp allocates it).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace kprof {

/// One device array of the plan, in solve()'s parameter order.
struct BufferSpec {
  std::string name;          ///< solve()'s parameter name
  std::string c_type;        ///< the parameter's type as normalised by the parser ("const float*")
  DType dtype = DType::F32;  ///< element type
  size_t count = 0;          ///< elements
  bool is_output = false;    ///< non-const pointer: written by the kernel (possibly read too)
  size_t param_index = 0;    ///< position in solve()'s parameter list
  std::string count_source;  ///< where `count` came from: "rule: N", "--size A=M*K", "--ptr-size", ...
  /// count * dtype_size(dtype), in bytes.
  size_t bytes() const { return count * dtype_size(dtype); }
  /// "input" or "output".
  std::string role() const { return is_output ? "output" : "input"; }
};

/// All buffers of one kernel configuration.
struct BufferPlan {
  std::vector<BufferSpec> buffers;
  /// Sum of bytes() over all buffers.
  size_t total_bytes() const;
  /// Index of the buffer with the most bytes (the first on ties). Precondition: not empty.
  size_t largest() const;
  /// The buffer named `name`, or nullptr.
  const BufferSpec* find(const std::string& name) const;
};

}  // namespace kprof
