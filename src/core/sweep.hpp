// Problem-size sweeps of `kprof run --sweep N=1Ki..64Mi`: the axes, their grid, and the file-safe
// key of one point ("N=1024_D=64") that names its result files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/dims.hpp"

namespace kprof {

/// Most points one sweep (all axes together) may have: a typo such as 1..64Gi must not queue
/// millions of runs. Source: kprof's rule.
inline constexpr size_t kMaxSweepPoints = 4096;

/// One `--sweep NAME=...` axis: a dimension and its values in order (integers, as text).
struct SweepAxis {
  std::string name;
  std::vector<int64_t> values;
};

/// An integer with an optional binary suffix: "1024", "1Ki" (1024), "64Mi" (64 x 2^20), "2Gi"
/// (2^31); plain decimal digits only. Throws Error (exit 2) naming `text` otherwise, or when the
/// value does not fit int64_t.
int64_t parse_size_literal(const std::string& text);

/// Parses "NAME=LO..HI" (every power-of-two multiple of LO up to HI: LO, 2LO, 4LO, ... <= HI) or
/// "NAME=V1,V2,..." (the list as given). Throws Error (exit 2) for a missing '=', a bad name (a
/// dimension name: letters, digits, '_'), a bad number, LO > HI, LO < 1, or more than
/// kMaxSweepPoints values.
SweepAxis parse_sweep_axis(const std::string& text);

/// One point of a grid: dimension name -> value text, in axis order.
using SweepPoint = std::vector<std::pair<std::string, std::string>>;

/// The grid of `axes` (the first axis varies slowest). Throws Error (exit 2) when two axes name
/// the same dimension or the grid holds more than kMaxSweepPoints points. No axes: one empty point.
std::vector<SweepPoint> sweep_grid(const std::vector<SweepAxis>& axes);

/// `base` with the point's values set (added, or replacing a dimension of the same name in place).
Dims dims_at(const Dims& base, const SweepPoint& point);

/// The file-safe key of a set of dimensions: "N=1024_D=64" in their order; characters outside
/// [A-Za-z0-9.=+-] become '_'; "nodims" when there are none.
std::string dims_key(const Dims& dims);

}  // namespace kprof
