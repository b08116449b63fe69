// Judging the environment: one line per item (ok / warn / fail / info / skip, why, what to do),
// the seed's required items and the implementation readiness table.
//
// Required (the seed's "Environment Check"): PyTorch import, CUDA runtime, the selected GPU, ncu;
// kprof adds the Python it embeds and ncu's access to the performance counters (without it no
// metric can be collected). And at least one implementation ready (the seed's table):
//   cuda-cpp: nvcc; cutlass: nvcc + CUTLASS C++ headers; triton: importable triton;
//   cute-dsl: importable cutlass.cute.
// nsight-python is reported, not required: kprof drives ncu itself.
#pragma once

#include <string>
#include <vector>

#include "core/implementation.hpp"
#include "stages/env/env_check.hpp"

namespace kprof {

/// State of one item. Info: reported only (e.g. an optional package that is not installed).
/// Skip: could not be checked because something it depends on failed.
enum class ItemStatus { Ok, Warn, Fail, Info, Skip };

/// "ok", "warn", "FAIL", "info", "skip".
std::string item_status_name(ItemStatus s);

/// One checked item.
struct CheckItem {
  std::string name;       ///< "PyTorch", "ncu counters", ...
  bool required = false;  ///< the environment is not ready unless it is Ok
  ItemStatus status = ItemStatus::Ok;
  std::string value;  ///< what was found ("2.8.0, CUDA 12.8, cuda available")
  std::string why;    ///< one line, when not Ok
  std::string fix;    ///< one line: what to do, when not Ok
};

/// One row of the implementation table.
struct ImplReadiness {
  Implementation impl = Implementation::CudaCpp;
  bool ready = false;
  std::string requirement;  ///< the seed's requirement ("nvcc executable plus CUTLASS C++ headers")
  std::string detail;       ///< what was found or what is missing
};

/// The judged environment.
struct EnvReport {
  EnvFacts facts;
  std::vector<CheckItem> items;
  std::vector<ImplReadiness> implementations;
  bool ready = false;                 ///< all required items Ok and >= 1 implementation ready
  std::vector<std::string> blockers;  ///< "<item>: <why>" for every failed required item
};

/// Judges `facts` (pure: no probing). See the file comment for the rules.
EnvReport assess_env(const EnvFacts& facts);

}  // namespace kprof
