// The environment's counter probe run as the first thing of `kprof run`'s standby ncu session:
// instead of a separate ncu process profiling `kprof __probe`, the session's runner
// (`kprof __session ... --probe`) profiles kprof's probe kernel once, in an NVTX range of its own,
// right after creating its CUDA context, and prints a mark. That one profiled launch is also ncu's
// first in the process, which costs about 1-1.6 s more than any later one (bench/RESULTS.md (g)):
// paid there, while the versions build, instead of on the first version. Pure functions on ncu's
// output and the session's rows; tested on CPU.
#pragma once

#include <string>
#include <vector>

#include "core/tools.hpp"
#include "stages/ncu/session.hpp"

namespace kprof {

/// The NVTX range around the probe's launch (not a version's: no kSessionRangePrefix).
inline constexpr const char* kSessionProbeRange = "kprof-counter-probe";

/// The probe kernel's function name (stages/env/probe_kernel.cu).
inline constexpr const char* kProbeKernelName = "kprof_probe_kernel";

/// The runner's mark once the probe's launch ended: "==KPROF== session probe done", or with
/// `why` (one line) "==KPROF== session probe failed: <why>".
std::string session_probe_mark(const std::string& why = "");

/// True when `line` (a prefix such as ncu's "  | " allowed) is either probe mark.
bool is_session_probe_mark(const std::string& line);

/// The environment's counters item from the session's output `out` up to the probe's mark, or
/// all of it when ncu ended first (`ended`; `timed_out` when kprof stopped it). Readable when
/// the runner marked the probe done, ncu printed its "==PROF== Profiling "kprof_probe_kernel"
/// ... passes" line and no error; the cycles stay unknown (probed_in_session: the value is in
/// the session's report). Otherwise the error and fix of parse_ncu_probe (ERR_NVGPUCTRPERM, the
/// counters held by another profiler, no kernel profiled) or the runner's own failure.
/// `command` is the session's ncu command line.
NcuCounters session_probe_counters(const std::string& out, bool ended, bool timed_out, const std::string& command);

/// `rows` without the probe's launch: rows in kSessionProbeRange, or (a report read without
/// NVTX ranges) named kProbeKernelName, so the split sees the versions' launches only.
std::vector<SessionRow> without_probe_rows(const std::vector<SessionRow>& rows);

}  // namespace kprof
