// NVIDIA compute-sanitizer's findings (kprof check --sanitize): which tools, what their
// text output says (parse_sanitizer_output: pure, no CUDA), which kernel each report is in (the
// user's or a library's: PyTorch, cuBLAS, kprof's own), and the verdict of one tool run.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// The compute-sanitizer tools `--sanitize` takes.
enum class SanitizerTool { Memcheck, Racecheck, Initcheck, Synccheck };

/// "memcheck", "racecheck", "initcheck", "synccheck" (compute-sanitizer's --tool values).
std::string sanitizer_tool_name(SanitizerTool tool);

/// The tool named `name` (exact, lower case); nullopt for anything else.
std::optional<SanitizerTool> parse_sanitizer_tool(const std::string& name);

/// Parses `--sanitize`'s comma-separated list ("memcheck,racecheck"), keeping its order. Throws
/// usage_error (exit 2) for an empty list, an empty item, an unknown name or a name given twice,
/// saying which tools there are.
std::vector<SanitizerTool> parse_sanitizer_tools(const std::string& list);

/// One group of identical reports: same kind, kernel and location.
struct SanitizerReport {
  /// What happened: "Invalid __global__ read of size 4 bytes", "Race reported between Write access
  /// and Read access", "Uninitialized __global__ memory read of size 4 bytes", "Barrier error
  /// detected. Divergent thread(s) in warp", "Program hit cudaErrorLaunchFailure (error 719) ...".
  std::string kind;
  std::string severity = "error";  ///< "error" or "warning" (racecheck's Warning: reports)
  /// The kernel (outermost device frame, demangled as printed, e.g. "reverse(const float *, float
  /// *, int)"); "" for a report about a CUDA API call (memcheck's "Program hit ...").
  std::string kernel;
  std::string location;  ///< "race_shared.cu:18" when printed (code built with -lineinfo / -G), else ""
  std::string detail;    ///< the first report's extra lines, one line ("by thread (1,0,0) in block (0,0,0); ...")
  long count = 0;        ///< reports in this group; for racecheck the hazards ("[4096 hazards]")
  bool library = false;  ///< in a library kernel (or an API call): listed, never failing
};

/// What one compute-sanitizer run printed.
struct SanitizerOutput {
  SanitizerTool tool = SanitizerTool::Memcheck;
  /// The final summary was found: "ERROR SUMMARY: N errors", or racecheck's "RACECHECK SUMMARY:
  /// N hazards displayed (E errors, W warnings)". False: the run ended before its summary.
  bool summary_found = false;
  long errors = 0;                       ///< N of "ERROR SUMMARY: N errors", or racecheck's E
  long warnings = 0;                     ///< racecheck's W (0 for the other tools)
  long hazards = 0;                      ///< racecheck's "N hazards displayed" (0 for the other tools)
  long printed = 0;                      ///< report blocks printed (at most --print-limit per kind of check)
  std::vector<SanitizerReport> reports;  ///< grouped, in order of first appearance
  std::vector<std::string> notes;        ///< the tool's own messages ("Warning: Maximum number of hazards reached...")
};

/// Parses compute-sanitizer's text output (its lines start with "========= "; anything else, the
/// target's own output, is skipped). Understands memcheck / initcheck / synccheck report blocks
/// (a header line, then indented "at FUNC+0xOFF in FILE:LINE", "by thread ...", "Device Frame:"
/// lines: the last device frame names the kernel), racecheck's analysis reports ("Error: Race
/// reported between Write access at F+0x90 in a.cu:9" / "and Read access at ... [N hazards]": one
/// group per pair), its hazard reports ("Error: Potential RAW hazard detected at __shared__ ...")
/// and the summaries; also the older "at 0x150 in a.cu:13:kernel(int*)" form. Never throws.
SanitizerOutput parse_sanitizer_output(SanitizerTool tool, const std::string& text);

/// True for a kernel that is not the user's: PyTorch's ("void at::native::...", "c10::"), CUB /
/// Thrust, cuBLAS / cuBLASLt / cuDNN ("cublas...", "sm90_xmma_...", "nvjet_...", "ampere_sgemm..."),
/// CUTLASS ("cutlass::Kernel<...>": only when `cutlass_is_user` is false), Triton kernels that
/// PyTorch generated ("triton_poi_..."), and kprof's own ("kprof::...", "kprof_l2_flush_read").
/// A leading "void " is ignored.
bool is_library_kernel(const std::string& kernel, bool cutlass_is_user);

/// Marks each report `library` (is_library_kernel; a report without a kernel is about an API call
/// and counts as library).
void classify_reports(SanitizerOutput& out, bool cutlass_is_user);

/// The verdict of one tool on the user's kernel.
struct SanitizerToolResult {
  SanitizerTool tool = SanitizerTool::Memcheck;
  std::string command;   ///< the command line that ran (copy-pasteable)
  std::string log_path;  ///< where its whole output was saved ("" when not written)
  int exit_code = -1;    ///< compute-sanitizer's exit status (the child check's, unless it failed itself)
  bool timed_out = false;
  double wall_s = 0;  ///< seconds
  /// Why the run gave no verdict ("timed out after 600 s", "ended without its ERROR SUMMARY
  /// line: ..."); "" when it did.
  std::string error;
  SanitizerOutput output;
  long user_errors = 0;     ///< error-severity reports (counts summed) in the user's kernels
  long user_warnings = 0;   ///< warning-severity reports in the user's kernels (listed, not failing)
  long library_errors = 0;  ///< reports in library kernels and API calls (listed, not failing)
  bool pass = false;        ///< no error and no user_errors
};

/// Judges one finished run: parses `text` (its whole output), classifies the reports, counts
/// them, and fails the tool when a user kernel has an error-severity report or the run gave no
/// verdict (`timed_out`, `start_error` non-empty, or no summary line). Pure; never throws.
SanitizerToolResult judge_sanitizer_run(SanitizerTool tool, const std::string& text, int exit_code, bool timed_out,
                                        const std::string& start_error, bool cutlass_is_user);

/// One line for the console / the report about a failing or passing tool: "racecheck: 1 error in
/// reverse(const float *, float *, int) at race_shared.cu:18: Race reported between Write access
/// and Read access (4096 hazards)", "memcheck: 0 errors", "initcheck: no verdict: timed out ...".
std::string sanitizer_tool_line(const SanitizerToolResult& r);

}  // namespace kprof
