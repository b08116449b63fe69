#include "stages/verify/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "core/error.hpp"

namespace kprof {
namespace {

/// Runs fn(chunk, begin, end) over [0, n) split into contiguous chunks, one thread per chunk
/// (at most the hardware's, and about one chunk per 4 Mi elements). Returns the chunk count.
template <typename Fn>
size_t parallel_chunks(size_t n, Fn&& fn) {
  size_t hw = std::max(1u, std::thread::hardware_concurrency());
  size_t chunks = std::max<size_t>(1, std::min(hw, n / (size_t{4} << 20) + 1));
  size_t step = (n + chunks - 1) / chunks;
  std::vector<std::thread> threads;
  for (size_t c = 1; c < chunks; ++c)
    threads.emplace_back([&, c] { fn(c, std::min(n, c * step), std::min(n, (c + 1) * step)); });
  fn(0, 0, std::min(n, step));
  for (auto& t : threads) t.join();
  return chunks;
}

/// Calls f(loader) with a loader reading element i of a `t` array as double: typed loops, not a
/// switch per element.
template <typename F>
void with_loader(DType t, F&& f) {
  switch (t) {
    case DType::F32:
      f([](const uint8_t* p, size_t i) {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        return double(v);
      });
      break;
    case DType::F64:
      f([](const uint8_t* p, size_t i) {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        return v;
      });
      break;
    default:
      f([t](const uint8_t* p, size_t i) { return dtype_load(p, i, t); });
      break;
  }
}

/// True when element i of `a` and `b` (same dtype, element size `n`) are bit-identical.
inline bool same_bits(const uint8_t* a, const uint8_t* b, size_t i, size_t n) {
  return std::memcmp(a + i * n, b + i * n, n) == 0;
}

/// Statistics of one chunk of compare_output, merged in chunk order.
struct Partial {
  double sum_abs = 0, sum_rel = 0, max_abs = 0, ref_max_abs = 0, sum_sq = 0, sum_ref_sq = 0;
  double min_atol = -std::numeric_limits<double>::infinity();
  size_t n_abs = 0, n_rel = 0, n_ref = 0, max_abs_index = 0, nonfinite = 0, never_written = 0, mismatches = 0;
  size_t nonzero = 0;
  std::vector<Mismatch> first_mismatches;
  std::vector<size_t> first_never_written;
};

}  // namespace

Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return {1e-4, 1e-3, "default for float32"};
    case DType::F64:
      return {1e-8, 1e-6, "default for float64"};
    case DType::F16:
      return {1e-3, 1e-2, "default for float16"};
    case DType::BF16:
      return {1e-2, 2e-2, "default for bfloat16"};
    default:
      return {0.0, 0.0, "exact (integer output)"};
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
    throw usage_error(fmt::format("output '{}': the reference has {} elements, the kernel's buffer {}", kernel.name,
                                  reference.count, kernel.count),
                      "return (or fill) a tensor with exactly one value per element of the buffer");
  OutputComparison c;
  c.name = kernel.name;
  c.dtype = kernel.dtype;
  c.count = kernel.count;
  c.tol = tol;
  std::vector<Partial> parts(std::max(1u, std::thread::hardware_concurrency()));
  const uint8_t* kb = kernel.bytes.data();
  const uint8_t* rb = reference.bytes.data();
  size_t used = 0;
  with_loader(kernel.dtype, [&](auto kload) {
    with_loader(reference.dtype, [&](auto rload) {
      used = parallel_chunks(kernel.count, [&](size_t chunk, size_t begin, size_t end) {
        Partial& p = parts[chunk];
        for (size_t i = begin; i < end; ++i) {
          double k = kload(kb, i), r = rload(rb, i);
          bool unwritten = !never_written.empty() && never_written[i];
          if (std::isfinite(r)) {
            p.ref_max_abs = std::max(p.ref_max_abs, std::fabs(r));
            p.sum_ref_sq += r * r;
            ++p.n_ref;
          }
          if (std::isfinite(k) && std::isfinite(r)) {
            double d = std::fabs(k - r);
            p.sum_abs += d;
            p.sum_sq += d * d;
            p.nonzero += d > 0;
            p.min_atol = std::max(p.min_atol, d - tol.rtol * std::fabs(r));
            ++p.n_abs;
            if (d > p.max_abs) {
              p.max_abs = d;
              p.max_abs_index = i;
            }
            if (std::fabs(r) > tol.atol) {
              p.sum_rel += d / std::fabs(r);
              ++p.n_rel;
            }
          } else if (!std::isfinite(k) && std::isfinite(r)) {
            ++p.nonfinite;
          }
          if (unwritten) {
            ++p.never_written;
            if (p.first_never_written.size() < kMaxListed) p.first_never_written.push_back(i);
          }
          if (unwritten || !element_matches(k, r, tol)) {
            ++p.mismatches;
            if (p.first_mismatches.size() < kMaxListed) p.first_mismatches.push_back({i, k, r});
          }
        }
      });
    });
  });
  double sum_abs = 0, sum_rel = 0, sum_sq = 0, sum_ref_sq = 0;
  size_t n_abs = 0, n_rel = 0, n_ref = 0;
  c.min_atol_at_rtol = -std::numeric_limits<double>::infinity();
  for (size_t q = 0; q < used; ++q) {  // chunk order = index order
    const Partial& p = parts[q];
    sum_abs += p.sum_abs;
    sum_rel += p.sum_rel;
    sum_sq += p.sum_sq;
    sum_ref_sq += p.sum_ref_sq;
    n_abs += p.n_abs;
    n_rel += p.n_rel;
    n_ref += p.n_ref;
    c.nonzero_errors += p.nonzero;
    c.min_atol_at_rtol = std::max(c.min_atol_at_rtol, p.min_atol);
    if (p.max_abs > c.max_abs) {
      c.max_abs = p.max_abs;
      c.max_abs_index = p.max_abs_index;
    }
    c.ref_max_abs = std::max(c.ref_max_abs, p.ref_max_abs);
    c.nonfinite += p.nonfinite;
    c.never_written += p.never_written;
    c.mismatches += p.mismatches;
    for (const auto& m : p.first_mismatches)
      if (c.first_mismatches.size() < kMaxListed) c.first_mismatches.push_back(m);
    for (size_t i : p.first_never_written)
      if (c.first_never_written.size() < kMaxListed) c.first_never_written.push_back(i);
  }
  for (size_t i = 0; i < std::min<size_t>(8, kernel.count); ++i) {
    c.kernel_preview.push_back(kernel.at(i));
    c.reference_preview.push_back(reference.at(i));
  }
  c.mean_abs = n_abs ? sum_abs / static_cast<double>(n_abs) : 0.0;
  c.mean_rel = n_rel ? sum_rel / static_cast<double>(n_rel) : 0.0;
  c.rms_error = n_abs ? std::sqrt(sum_sq / static_cast<double>(n_abs)) : 0.0;
  c.ref_rms = n_ref ? std::sqrt(sum_ref_sq / static_cast<double>(n_ref)) : 0.0;
  if (!n_abs) c.min_atol_at_rtol = 0;
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
                                        const HostArray& sentinel_after, uint64_t sentinel,
                                        const std::vector<uint8_t>& reference_changed) {
  if (before.count != after.count || after.count != sentinel_after.count ||
      (!reference_changed.empty() && reference_changed.size() != after.count))
    throw usage_error("never-written check: buffer sizes differ between runs of '" + after.name + "'");
  const uint8_t* rc = reference_changed.empty() ? nullptr : reference_changed.data();
  size_t n = dtype_size(after.dtype);
  uint8_t s[8];
  std::memcpy(s, &sentinel, 8);  // little-endian: the element's bytes are the low bytes
  std::vector<uint8_t> flags(after.count, 0);
  const uint8_t *b = before.bytes.data(), *a = after.bytes.data(), *z = sentinel_after.bytes.data();
  parallel_chunks(after.count, [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      flags[i] = (!rc || rc[i]) && same_bits(b, a, i, n) && std::memcmp(z + i * n, s, n) == 0;
  });
  return flags;
}

std::vector<uint8_t> reference_changes(const HostArray& before, const HostArray& reference, size_t* changed) {
  if (before.count != reference.count)
    throw usage_error(fmt::format("output '{}': the reference has {} elements, the kernel's buffer {}", before.name,
                                  reference.count, before.count),
                      "return (or fill) a tensor with exactly one value per element of the buffer");
  std::vector<uint8_t> flags(before.count, 0);
  std::vector<size_t> counts(std::max(1u, std::thread::hardware_concurrency()), 0);
  const uint8_t *b = before.bytes.data(), *r = reference.bytes.data();
  const bool same_type = before.dtype == reference.dtype;
  const size_t n = dtype_size(before.dtype);
  size_t used = 0;
  with_loader(before.dtype, [&](auto bload) {
    with_loader(reference.dtype, [&](auto rload) {
      used = parallel_chunks(before.count, [&](size_t chunk, size_t begin, size_t end) {
        if (same_type && std::memcmp(b + begin * n, r + begin * n, (end - begin) * n) == 0) return;
        for (size_t i = begin; i < end; ++i) {
          double x = bload(b, i), y = rload(r, i);
          bool differs = !(x == y || (std::isnan(x) && std::isnan(y)));
          flags[i] = differs;
          counts[chunk] += differs;
        }
      });
    });
  });
  size_t total = 0;
  for (size_t q = 0; q < used; ++q) total += counts[q];
  if (changed) *changed = total;
  return flags;
}

size_t add_sentinel_reference_changes(std::vector<uint8_t>& flags, DType buffer_dtype, const HostArray& again) {
  if (flags.size() != again.count)
    throw usage_error(fmt::format("output '{}': the reference's second call gave {} elements, its first {}", again.name,
                                  again.count, flags.size()));
  uint8_t s[8];
  const uint64_t bits = sentinel_bits(buffer_dtype);
  std::memcpy(s, &bits, 8);  // little-endian: the element's bytes are the low bytes
  const double sentinel = dtype_load(s, 0, buffer_dtype);
  std::vector<size_t> counts(std::max(1u, std::thread::hardware_concurrency()), 0);
  const uint8_t* r = again.bytes.data();
  size_t used = 0;
  with_loader(again.dtype, [&](auto load) {
    used = parallel_chunks(again.count, [&](size_t chunk, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        if (!flags[i] && load(r, i) != sentinel) flags[i] = 1;  // NaN != sentinel: written
        counts[chunk] += flags[i];
      }
    });
  });
  size_t total = 0;
  for (size_t q = 0; q < used; ++q) total += counts[q];
  return total;
}

OutputComparison compare_buffer(const HostArray& pre, const HostArray& post, const HostArray& expected,
                                const HostArray& sentinel_out, const std::vector<uint8_t>& ref_changed,
                                size_t ref_changes, bool kernel_changed, const Tolerance& tol) {
  if (!kernel_changed && ref_changes == 0) {
    OutputComparison c = compare_output(post, expected, tol);
    c.role = BufferRole::UnchangedInput;
    return c;
  }
  std::vector<uint8_t> flags;
  if (sentinel_out.count == post.count && post.count)
    flags = find_never_written(pre, post, sentinel_out, sentinel_bits(post.dtype), ref_changed);
  OutputComparison c = compare_output(post, expected, tol, flags);
  if (ref_changes == 0) {
    c.role = BufferRole::WrittenInput;
    if (!c.pass)
      c.reason = fmt::format("the reference leaves '{}' unchanged (an input?) but the kernel wrote into it: {}",
                             post.name, c.reason);
  }
  return c;
}

uint64_t sentinel_bits(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return 0xF1835A5Bull;  // about -1.3e30
    case DType::F64:
      return 0xC62A5A5A5A5A5A5Bull;  // about -1.1e30
    case DType::F16:
      return 0xFA5Bull;  // -52064
    case DType::BF16:
      return 0xF15Bull;  // about -1.1e30
    case DType::I8:
      return 0xA5ull;
    case DType::U8:
      return 0xA5ull;
    case DType::I16:
    case DType::U16:
      return 0xA55Bull;
    case DType::I32:
    case DType::U32:
      return 0xA55A5A5Bull;
    case DType::I64:
    case DType::U64:
      return 0xA55A5A5A5A5A5A5Bull;
  }
  return 0;
}

size_t count_modified(const HostArray& before, const HostArray& after, std::vector<size_t>* first) {
  size_t count = std::min(before.count, after.count);
  size_t n = dtype_size(after.dtype);
  std::vector<size_t> counts(std::max(1u, std::thread::hardware_concurrency()), 0);
  std::vector<std::vector<size_t>> firsts(counts.size());
  const uint8_t *b = before.bytes.data(), *a = after.bytes.data();
  size_t used = parallel_chunks(count, [&](size_t chunk, size_t begin, size_t end) {
    // Whole-range memcmp first: an untouched input (the usual case) costs one pass at memory speed.
    if (std::memcmp(b + begin * n, a + begin * n, (end - begin) * n) == 0) return;
    for (size_t i = begin; i < end; ++i) {
      if (same_bits(b, a, i, n)) continue;
      if (firsts[chunk].size() < kMaxListed) firsts[chunk].push_back(i);
      ++counts[chunk];
    }
  });
  size_t total = 0;
  for (size_t q = 0; q < used; ++q) {
    total += counts[q];
    if (first)
      for (size_t i : firsts[q])
        if (first->size() < kMaxListed) first->push_back(i);
  }
  return total;
}

}  // namespace kprof
