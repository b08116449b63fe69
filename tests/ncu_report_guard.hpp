// Skips a test that reads a .ncu-rep through Nsight Compute's Python module `ncu_report`, visibly
// and with the reason, on a machine where kprof's own lookup imports none (stages/ncu/ncu_rep.hpp:
// $KPROF_NCU_REPORT, ncu's extras/python, then `import ncu_report` from sys.path, where PyPI's
// ncu-report lands). The module is an optional run-time part (README.md), like the GPU of
// gpu_guard.hpp: a fresh machine without it skips these tests instead of failing them.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "stages/ncu/ncu_rep.hpp"

namespace kprof_test {

/// "" when kprof can import an ncu_report module now; else the skip message: what to install and
/// where kprof looked. Asked each time (KPROF_NCU_REPORT may change between tests); after the
/// first call Python is already started and the answer costs well under a millisecond.
inline std::string ncu_report_skip_reason() {
  std::string why = kprof::ncu_report_unavailable_reason();
  if (why.empty()) return "";
  return std::string("ncu_report not importable: pip install ncu-report==") + kprof::kNcuReportTestedVersion +
         " (or install Nsight Compute, or set KPROF_NCU_REPORT to a folder holding ncu_report); " + why;
}

}  // namespace kprof_test

/// GTEST_SKIP()s the current test, with the reason, when no ncu_report module can be imported.
#define KPROF_REQUIRE_NCU_REPORT()                                     \
  do {                                                                 \
    std::string kprof_ncu_why_ = kprof_test::ncu_report_skip_reason(); \
    if (!kprof_ncu_why_.empty()) GTEST_SKIP() << kprof_ncu_why_;       \
  } while (0)
