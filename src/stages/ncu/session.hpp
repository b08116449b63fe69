// One Nsight Compute session for all versions of a `kprof run`: the plan the session's
// runner (`kprof __session PLAN`) reads, the lines it prints per version, and the attribution of
// ncu's result rows to versions. Pure functions, no GPU, no ncu: tested on real H200 exports.
//
// The runner loads each version in turn, prepares and warms it up outside the profiled range, then
// makes one call between cudaProfilerStart/Stop (ncu runs with --profile-from-start off) inside an
// NVTX push/pop range named "kprof:<version>" (ncu --nvtx records it with each result). The rows
// of the one report are then split between the versions:
//   - by the NVTX range of each row when the report was read through ncu_report (exact);
//   - else in launch order by the kernels CUPTI saw per call in each version's timing (count and
//     names; kernels of the same name are compared by their function name, display_kernel_name).
// A version whose rows do not match what it launched, or that the runner did not finish, is not
// attributed: `kprof run` profiles it in its own session (as `--ncu-session per-version` does).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace kprof {

/// Prefix of the NVTX range around each version's profiled call: "kprof:v1".
/// Default of --ncu-session: one (true): every correct version profiled in one ncu session;
/// false: one ncu process per version.
inline constexpr bool kDefaultOneNcuSession = true;

inline constexpr const char* kSessionRangePrefix = "kprof:";

/// "kprof:" + version.
std::string session_range_name(const std::string& version);

/// One version of the session: its name (the run's folder name) and the request `kprof __runner`
/// would get for it alone (api/requests.hpp RunnerRequest as JSON: the kernel's spec, warmup_calls).
struct SessionPlanEntry {
  std::string name;
  nlohmann::json request;
};

/// The plan as JSON: {"versions": [{"name": ..., "request": {...}}, ...]}.
nlohmann::json session_plan_json(const std::vector<SessionPlanEntry>& plan);

/// Reads session_plan_json's layout. Throws usage_error (exit 2) naming what is malformed (not an
/// object, no versions, an entry without a name or a request object, two entries with one name).
std::vector<SessionPlanEntry> parse_session_plan(const nlohmann::json& j);

/// What the runner says about one version.
enum class SessionState {
  Done,        ///< its one call ran inside its range and finished cleanly
  Skipped,     ///< it failed before its range opened (load, setup, warm-up): it has no rows
  Failed,      ///< it failed inside its range (some of its kernels may have rows)
  NotReached,  ///< the runner stopped (crash, hang, lost context) before it said anything
};

/// The line the runner prints for a version: "==KPROF== session done v1",
/// "==KPROF== session skipped v1: <why>", "==KPROF== session failed v1: <why>" (why on one line).
std::string session_mark_line(SessionState state, const std::string& version, const std::string& why = "");

/// One version's mark read back from the session's output.
struct SessionMark {
  SessionState state = SessionState::NotReached;
  std::string why;
};

/// The marks in `log` (ncu's and the runner's output) by version name; a version without one is
/// absent (NotReached). Lines may carry a prefix (ncu passes the runner's output through).
std::map<std::string, SessionMark> read_session_marks(const std::string& log);

/// One version's mark as the runner hands it in its outcome document (core/outcome.hpp, "results":
/// {"versions": [...]}): {"name", "state": "done" | "skipped" | "failed", "why"}.
nlohmann::json session_mark_json(SessionState state, const std::string& version, const std::string& why = "");

/// The marks in a session runner's outcome results ({"versions": [session_mark_json...]}) by
/// version name; empty when it names none. An entry of another shape is passed over.
std::map<std::string, SessionMark> session_marks_from_results(const nlohmann::json& results);

/// One version as the split sees it.
struct SessionVersion {
  std::string name;
  std::vector<std::string> kernels;  ///< kernel names of one call in launch order (CUPTI, during timing)
  SessionState state = SessionState::NotReached;
};

/// One row of the session's report.
struct SessionRow {
  int id = 0;         ///< ncu's "ID" (the report's launch index)
  std::string name;   ///< ncu's "Kernel Name"
  std::string range;  ///< the kprof NVTX range it ran in ("" when the report was not read for NVTX)
};

/// The rows of each version.
struct SessionSplit {
  std::vector<std::vector<int>> ids;  ///< per version (plan order): its rows' IDs, report order
  std::vector<std::string> why_not;   ///< per version: "" when attributed, else why it gets its own session
  std::string method;                 ///< "NVTX ranges" or "launch order (kernel counts and names from CUPTI)"
  bool attributed(size_t i) const { return why_not.at(i).empty(); }
};

/// True when two kernel names denote the same function: equal after display_kernel_name (no
/// return type, parameters or template arguments) and with spaces removed, so CUPTI's demangled
/// "k(float const*)" and ncu's "k(const float *)" match.
bool same_kernel_name(const std::string& a, const std::string& b);

/// Splits `rows` (report order) between `versions` (plan order) as the file comment says. With
/// NVTX (every row has a range): each Done version takes the rows of its range, attributed when
/// they match its kernels in count and names. Without: a cursor walks the versions in order, a
/// Skipped one takes no rows, a Done one the next kernels.size() rows when their names match; the
/// first Failed or NotReached version, or the first mismatch, stops it (that version and every
/// later one fall back). Rows left over after every version was Done make the whole split
/// unverifiable: every version falls back. A version that launched no kernel is never attributed.
SessionSplit split_session_rows(const std::vector<SessionRow>& rows, const std::vector<SessionVersion>& versions);

}  // namespace kprof
