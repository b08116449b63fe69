#include "verify/compare.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace kprof {

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::F32: return {1e-4, 1e-3, "default for float32"};
    case DType::F64: return {1e-8, 1e-6, "default for float64"};
    case DType::F16: return {1e-3, 1e-2, "default for float16"};
    case DType::BF16: return {1e-2, 2e-2, "default for bfloat16"};
    default: return {0.0, 0.0, "exact (integer output)"};
  }
}

bool element_matches(double k, double r, const Tolerance& tol) {
  if (std::isnan(r)) return std::isnan(k);
  if (std::isinf(r)) return k == r;
  if (!std::isfinite(k)) return false;
  return std::fabs(k - r) <= tol.atol + tol.rtol * std::fabs(r);
}

OutputComparison compare_output(const HostArray& kernel, const HostArray& reference, const Tolerance& tol,
                                const std::vector<uint8_t>& never_written) {
  if (kernel.count != reference.count)
    throw usage_error(fmt::format("output '{}': the reference has {} elements, the kernel's buffer {}",
                                  kernel.name, reference.count, kernel.count),
                      "return (or fill) a tensor with exactly one value per element of the buffer");
  OutputComparison c;
  c.name = kernel.name;
  c.dtype = kernel.dtype;
  c.count = kernel.count;
  c.tol = tol;
  double sum_abs = 0, sum_rel = 0;
  size_t n_abs = 0, n_rel = 0;
  for (size_t i = 0; i < kernel.count; ++i) {
    double k = kernel.at(i), r = reference.at(i);
    bool unwritten = !never_written.empty() && never_written[i];
    if (std::isfinite(r)) c.ref_max_abs = std::max(c.ref_max_abs, std::fabs(r));
    if (std::isfinite(k) && std::isfinite(r)) {
      double d = std::fabs(k - r);
      sum_abs += d;
      ++n_abs;
      if (d > c.max_abs) { c.max_abs = d; c.max_abs_index = i; }
      if (std::fabs(r) > tol.atol) { sum_rel += d / std::fabs(r); ++n_rel; }
    } else if (!std::isfinite(k) && std::isfinite(r)) {
      ++c.nonfinite;
    }
    bool ok = element_matches(k, r, tol) && !unwritten;
    if (unwritten) {
      ++c.never_written;
      if (c.first_never_written.size() < kMaxListed) c.first_never_written.push_back(i);
    }
    if (!ok) {
      ++c.mismatches;
      if (c.first_mismatches.size() < kMaxListed) c.first_mismatches.push_back({i, k, r});
    }
    if (i < 8) {
      c.kernel_preview.push_back(k);
      c.reference_preview.push_back(r);
    }
  }
  c.mean_abs = n_abs ? sum_abs / static_cast<double>(n_abs) : 0.0;
  c.mean_rel = n_rel ? sum_rel / static_cast<double>(n_rel) : 0.0;
  c.atol_dwarfs_reference = c.count > 0 && tol.atol > 0 && tol.atol >= c.ref_max_abs;
  c.pass = c.mismatches == 0;
  if (!c.pass) {
    std::vector<std::string> why;
    if (c.never_written) why.push_back(fmt::format("{} element(s) never written", c.never_written));
    if (c.nonfinite) why.push_back(fmt::format("{} NaN/Inf where the reference is finite", c.nonfinite));
    size_t plain = c.mismatches - c.never_written;
    if (plain > c.nonfinite)
      why.push_back(fmt::format("{} element(s) outside atol={:g} + rtol={:g}*|ref| (max |delta| {:.4g} at [{}])",
                                plain - c.nonfinite, tol.atol, tol.rtol, c.max_abs, c.max_abs_index));
    for (size_t i = 0; i < why.size(); ++i) c.reason += (i ? "; " : "") + why[i];
  }
  return c;
}

std::vector<uint8_t> find_never_written(const HostArray& before, const HostArray& after,
                                        const HostArray& sentinel_after, uint64_t sentinel) {
  if (before.count != after.count || after.count != sentinel_after.count)
    throw usage_error("never-written check: buffer sizes differ between runs of '" + after.name + "'");
  std::vector<uint8_t> flags(after.count, 0);
  for (size_t i = 0; i < after.count; ++i)
    flags[i] = before.bits(i) == after.bits(i) && sentinel_after.bits(i) == sentinel;
  return flags;
}

uint64_t sentinel_bits(DType dtype) {
  switch (dtype) {
    case DType::F32: return 0xF1835A5Bull;               // about -1.3e30
    case DType::F64: return 0xC62A5A5A5A5A5A5Bull;       // about -1.1e30
    case DType::F16: return 0xFA5Bull;                   // -52064
    case DType::BF16: return 0xF15Bull;                  // about -1.1e30
    case DType::I8: return 0xA5ull;
    case DType::U8: return 0xA5ull;
    case DType::I16: case DType::U16: return 0xA55Bull;
    case DType::I32: case DType::U32: return 0xA55A5A5Bull;
    case DType::I64: case DType::U64: return 0xA55A5A5A5A5A5A5Bull;
  }
  return 0;
}

size_t count_modified(const HostArray& before, const HostArray& after, std::vector<size_t>* first) {
  size_t n = 0;
  size_t count = std::min(before.count, after.count);
  for (size_t i = 0; i < count; ++i) {
    if (before.bits(i) != after.bits(i)) {
      if (first && first->size() < kMaxListed) first->push_back(i);
      ++n;
    }
  }
  return n;
}

}  // namespace kprof
