// `kprof run --ncu-session one` (the default): the versions are checked and timed one by one, then
// Nsight Compute profiles all of them in ONE session (`kprof __session` under one ncu process: one
// ncu start-up, one CUDA context, one embedded Python with one PyTorch import), report
// OUTPUT_DIR/run.ncu-rep with an NVTX range "kprof:<version>" per version. Its rows are split between
// the versions (stages/ncu/session.hpp); a version the session did not attribute (it crashed or hung
// under ncu, its rows did not match what it launched) is profiled in a session of its own, as
// `--ncu-session per-version` does for every version. Each version's reports are then written as
// before (ncu_summary.md, ncu_details.md, profile.json, roofline), linking the shared report.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "flows/ncu_standby.hpp"
#include "flows/profile.hpp"

namespace kprof {

/// A version timed and waiting for its ncu step.
struct PendingProfile {
  std::string name;  ///< the version's folder name; its NVTX range is session_range_name(name)
  std::string dir;   ///< its report folder
  KernelSpec spec;
  WorkModel work;                                           ///< its call's least work (call_work while it was loaded)
  std::vector<std::pair<std::string, std::string>> header;  ///< kernel_header_rows
  ProfileOutcome out;                                       ///< timing (and notes) filled; the rest by profile_pending
  /// Seconds profile_pending spent on this version alone: its classification and reports, and its
  /// own ncu session when it had one; the shared session is not in it (its own progress line).
  double ncu_step_s = 0;
};

/// Times a prepared `inst` and keeps what its profile needs once the instance is gone. Throws
/// like time_profile. Without `with_work` the work model (ref.py's flops() / bytes_moved(), Python)
/// is left for the caller: a version timed while ref.py still loads gets it after its check.
PendingProfile time_for_session(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& settings,
                                const std::string& name, const std::string& dir, bool with_work = true);

/// "" when a version can share the session; else why not: its rows could not be told apart
/// without CUPTI's kernel records (unavailable, no kernel, or calls that launch different kernels).
std::string session_ineligible(const TimingResult& timing);

/// The ncu step of every pending version and their reports: one session for the eligible ones (two
/// or more), a session of its own for each other one and for each the session did not attribute;
/// then the classification and write_profile_reports per version. With `gpu_usable` false (a
/// kernel hung or lost the context before) ncu does not run and each version's reports say so.
/// With `standby` (flows/ncu_standby.hpp, started while the versions were checked and timed) the
/// one session is that one, released with the eligible versions, else a new ncu process; a standby
/// that is not needed is cancelled. `classified` is called once every version is classified, before
/// the reports are written (`kprof run` starts its own chart then).
/// Writes OUTPUT_DIR/ncu_session.json (the plan), run.ncu-rep and ncu_session.log. Throws Error
/// only when a report cannot be written.
/// `go_on` (optional) is called once before any result is used: with a standby, right after its
/// release while ncu runs, else before ncu starts. When it returns false (`kprof run`'s environment
/// failed) ncu is stopped and profile_pending returns at once: no report, no fallback session.
void profile_pending(std::vector<PendingProfile>& pending, const ProfileSettings& settings, const std::string& run_dir,
                     bool gpu_usable, StandbySession* standby = nullptr,
                     const std::function<void(const std::vector<PendingProfile>&)>& classified = {},
                     const std::function<bool()>& go_on = {});

}  // namespace kprof
