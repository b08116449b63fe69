// The FLOPs of the reference, counted by PyTorch's FlopCounterMode while reference(**kwargs) ran
// (reference.cpp), kept per ref.py and call for the time bound's compute term when ref.py
// declares no flops(**dims) (flows/assess_context.cpp call_work; docs/CLASSIFICATION.md "Time
// bound and headroom"). FlopCounterMode counts matrix products, convolutions and attention
// (aten.mm, aten.bmm, aten.convolution, scaled_dot_product_attention, ...), an FMA as 2 FLOPs;
// element-wise ops and reductions count nothing.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device/buffer_view.hpp"

namespace kprof {

/// What FlopCounterMode counted during one reference call.
struct CountedFlops {
  std::optional<double> total;                        ///< FLOPs; nullopt when nothing could be counted (`why` says why)
  std::vector<std::pair<std::string, double>> by_op;  ///< {"aten.mm", 1.37e11}, ..., largest first
  std::string why;                                    ///< why nothing was counted ("" when counted)
};

/// The key of one reference call: its buffers (name, dtype, element count) and scalars (name,
/// value), so a count is only used for a call of the same sizes.
std::string reference_call_key(const std::vector<BufferView>& buffers, const std::vector<ScalarArg>& scalars);

/// Keeps `c` for ref.py `ref_path` (canonicalised) and call `key`, replacing an earlier one.
/// Thread-safe.
void record_counted_flops(const std::string& ref_path, const std::string& key, CountedFlops c);

/// The count recorded for `ref_path` and `key`, or nullopt when the reference did not run for
/// that call in this process (kprof profile without a check). Thread-safe.
std::optional<CountedFlops> counted_flops(const std::string& ref_path, const std::string& key);

/// How the count reads in the bound: "counted by PyTorch's FlopCounterMode while reference() ran:
/// 1.37e+11 FLOPs (aten.mm 1.37e+11)", or "FLOPs not counted: <why>".
std::string counted_flops_how(const CountedFlops& c);

}  // namespace kprof
