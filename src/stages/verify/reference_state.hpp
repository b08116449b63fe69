// The Python side of a ReferenceModule (reference.hpp), shared by the files of stages/verify that
// call into the loaded ref.py (reference.cpp: reference(), its FLOPs counted; work_model.cpp: flops / bytes_moved).
// Every member is used with the GIL held.
#pragma once

#include <set>
#include <string>

#include "python/py_internal.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {

/// Counting the reference's FLOPs (flop_count.hpp): once per call key, until the counter failed.
struct FlopCountState {
  bool enabled = true;            ///< false once reference raised under FlopCounterMode and not without it
  std::set<std::string> counted;  ///< call keys already counted (later calls run without the mode)
};

/// The Python side of a ReferenceModule. Destroyed with the GIL held (see ReferenceModule::load).
struct __attribute__((visibility("hidden"))) ReferenceModule::State {
  py::object module;
  py::object fn;
  std::string file;  ///< absolute path, for choosing the user's traceback frame
  /// The outputs-in-setup()-shapes convention worked where the flat one raised: later calls
  /// start with it (GIL held when read or written).
  bool shaped_first = false;
  FlopCountState flops;  ///< GIL held when read or written
};

}  // namespace kprof
