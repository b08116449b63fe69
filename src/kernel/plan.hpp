// The buffer plan of a solve() kernel: which device arrays kprof allocates, of what type and how
// many elements, and whether the kernel reads or writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dims.hpp"
#include "core/dtype.hpp"
#include "device/buffer_plan.hpp"
#include "kernel/signature.hpp"

namespace kprof {

/// Seed rule, no integer dimension given: 1 Mi elements per pointer (the seed's "none -> 1 Mi").
constexpr size_t kDefaultPointerElements = size_t{1} << 20;

/// kprof's cap on the seed rule: 1 Gi elements (4 GiB of float32) per buffer, so a product of
/// two large dimensions cannot ask for more than a GPU holds. Explicit `--ptr-size` / `--size`
/// counts are not capped by it (only by kMaxExplicitElements and free GPU memory).
constexpr size_t kMaxRuleElements = size_t{1} << 30;

/// Upper bound for explicit counts (`--ptr-size`, `--size`): 2^40 elements, far beyond any GPU's
/// memory; it only keeps byte arithmetic from overflowing.
constexpr size_t kMaxExplicitElements = size_t{1} << 40;

/// The seed's element-count rule for pointer parameters, from the integer dimensions given:
/// one -> that value; several -> the product of the two largest; none -> kDefaultPointerElements;
/// then capped at kMaxRuleElements (`capped` says so). `why` explains the result for reports
/// ("N=1024", "M*K = 512*256 (two largest of M, K, N)", "no integer dimension: 1 Mi", ...).
/// Throws Error (exit 2) when the result is negative (a negative dimension).
struct RuleCount {
  size_t count = 0;
  std::string why;
  bool capped = false;
};
RuleCount seed_element_count(const std::map<std::string, int64_t>& int_dims);

/// Builds the plan for `sig`: every pointer parameter becomes a buffer; `const` pointers are
/// inputs, the others outputs. Count per buffer, first match wins:
///   1. `--size NAME=EXPR` (EXPR over integer dimensions, core/dims.hpp eval_int_expr);
///   2. `--ptr-size N` for every buffer;
///   3. seed_element_count(dims.ints()).
/// Throws Error (exit 2): a --size entry without '=', naming no buffer of solve() (the message
/// lists the buffers) or a scalar, given twice, or any count < 0 or > kMaxExplicitElements.
BufferPlan make_buffer_plan(const Signature& sig, const Dims& dims, const std::vector<std::string>& size_exprs,
                            std::optional<int64_t> ptr_size);

/// The plan as a Markdown table: Buffer | Type | Role | Elements | Bytes | Size from.
std::string plan_markdown(const BufferPlan& plan);

/// The plan as JSON: [{"name","c_type","dtype","role","count","bytes","count_source"}, ...].
nlohmann::json plan_to_json(const BufferPlan& plan);

}  // namespace kprof
