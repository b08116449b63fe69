// The Python side of flop_count.hpp, for the files of stages/verify that call into ref.py (and
// the tests). Every function here expects the GIL to be held.
#pragma once

#include "python/py_internal.hpp"
#include "stages/verify/flop_count.hpp"

namespace kprof {

/// fn(**kwargs) under PyTorch's FlopCounterMode (_kprof.call_counting_flops, python/helpers_py.cpp):
/// returns fn's result and fills `counted` (total and per-op FLOPs, or `why` when torch is not
/// loaded, has no FlopCounterMode, or the mode could not be read: then fn ran without it).
/// Raises (py::error_already_set) what fn raised under the mode.
py::object call_counting_flops(py::handle fn, const py::dict& kwargs, CountedFlops& counted);

}  // namespace kprof
