// The Python side of a ReferenceModule (reference.hpp), shared by the files of stages/verify that
// call into the loaded ref.py (reference.cpp: reference(); work_model.cpp: flops / bytes_moved).
// Every member is used with the GIL held.
#pragma once

#include <string>

#include "python/py_internal.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {

/// The Python side of a ReferenceModule. Destroyed with the GIL held (see ReferenceModule::load).
struct __attribute__((visibility("hidden"))) ReferenceModule::State {
  py::object module;
  py::object fn;
  std::string file;  ///< absolute path, for choosing the user's traceback frame
  /// The outputs-in-setup()-shapes convention worked where the flat one raised: later calls
  /// start with it (GIL held when read or written).
  bool shaped_first = false;
};

}  // namespace kprof
