// Reading a .ncu-rep with the stand-in for Nsight Compute's closed ncu_report module
// (tests/data/fake_ncu_report): shared by the tests of where a report is read (this process or a child).
#pragma once

#include <optional>
#include <string>

#include "core/fs.hpp"
#include "core/settings.hpp"
#include "stages/ncu/ncu_rep.hpp"

namespace kprof::testutil {

/// The folder of the fake module (KPROF_NCU_REPORT / Settings::ncu_report). It reads every report as
/// one launch named "child_kernel(float *)", writes the loading process's id to REPORT.pid, and aborts
/// or hangs for a report whose file name contains "abort" or "hang".
inline std::string fake_ncu_report() { return std::string(KPROF_TEST_DATA) + "/fake_ncu_report"; }

/// What reading `path` with the fake module gave: the report (nullopt: `why`) and the id of the
/// process that loaded it (REPORT.pid; 0 when none did).
struct FakeModuleRead {
  std::optional<NcuRep> rep;
  std::string why;
  long loader_pid = 0;
};

/// Reads `path` (launch names only: no metrics, source or rules) through try_read_ncu_rep with the
/// fake module, in whatever process kprof's rules choose.
inline FakeModuleRead read_with_fake_ncu_report(const std::string& path) {
  Settings s = settings();
  s.ncu_report = fake_ncu_report();
  ScopedSettings scoped(s);
  NcuRepReadOptions o;
  o.metrics = o.source = o.rules = false;
  FakeModuleRead r;
  r.rep = try_read_ncu_rep(path, o, &r.why);
  if (path_exists(path + ".pid")) r.loader_pid = std::stol(read_file(path + ".pid"));
  return r;
}

}  // namespace kprof::testutil
