// The pieces of `kprof run` (flows/run/run_flow.cpp) that need none of its state: progress lines, the
// rows before a version runs, the run's chart, the versions' input checks and settings.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "flows/ncu_session.hpp"
#include "flows/run/run_request.hpp"
#include "report/roofline_chart.hpp"
#include "stages/verify/check.hpp"

namespace kprof {

/// "[v1] check: PASS (2.3 s)": `what` of `step` of `version`, taking `seconds`.
std::string step_text(const std::string& version, const std::string& step, const std::string& what, double seconds);

/// Prints step_text with the seconds since `t0`.
void step_line(const std::string& version, const std::string& step, const std::string& what,
               std::chrono::steady_clock::time_point t0);

/// roofline.svg of `kprof run`: each version's leading kernel with its bound; started on the
/// chart workers (RooflineJob::note() waits for it and says why not).
RooflineJob start_versions_roofline(const std::string& dir,
                                    const std::vector<std::pair<std::string, const NcuAnalysis*>>& done);

/// "A: f32 x 1024, C: f32 x 1024" from {"A", "f32 x 1024"}, {"C", "f32 x 1024"}.
std::string buffer_list(const std::vector<std::pair<std::string, std::string>>& buffers);

/// The row of version `j` (folder name names[j]) before it runs.
VersionRow new_row(const RunRequest& req, const std::vector<std::string>& names, size_t j);

/// The first failure of a check, in one line (the fault, an output, a guard, a modified input).
std::string first_failure(const CheckResult& r);

/// The run's profile settings (its ref.py for the work model).
ProfileSettings run_profile_settings(const RunRequest& req);

/// validate_spec of every version; the .cu ones at once (each reads solve() through nvcc's host
/// preprocessor, 0.1 s or more), the .py ones on this thread (their check runs Python). Rethrows
/// the first version's error (Error, exit 2), in the order given.
void validate_versions(const std::vector<KernelSpec>& versions);

/// Removes the timings marked in `dropped` (one flag per entry) from `pending` and their row
/// indices from `rows` (same order and size), keeping the order of the rest.
void drop_pending(std::vector<PendingProfile>& pending, std::vector<size_t>& rows, const std::vector<bool>& dropped);

/// Device bytes of `inst`'s buffers (count x dtype size of each).
size_t buffer_bytes(const KernelInstance& inst);

/// True when the run's ncu step is one session for two or more versions, which may start in standby.
bool standby_wanted(const RunRequest& req);

/// Folder names for the versions: the kernel files' base names, made unique ("v0", "v1", or
/// "softmax", "softmax-2" when two files share a name).
std::vector<std::string> version_folder_names(const std::vector<KernelSpec>& versions);

}  // namespace kprof
