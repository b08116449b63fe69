// kprof check --sanitize: after the normal check, the same kernel once more per tool
// under NVIDIA compute-sanitizer, as a child `kprof __check --request FILE` (one request in: the
// check's typed request with one trial, api/command_requests.hpp; one outcome out: its outcome
// document, core/outcome.hpp) whose reports go to a scratch folder; the tool's findings join the
// check's result (correctness.md / .json).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/command_requests.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/verify/check.hpp"
#include "stages/verify/sanitizer.hpp"

namespace kprof {

/// Everything one --sanitize run needs.
struct SanitizeRequest {
  std::vector<SanitizerTool> tools;  ///< in the order given
  std::string sanitizer;             ///< compute-sanitizer's path (require_compute_sanitizer)
  std::vector<std::string> kprof;    ///< the words that start kprof (core/tools.hpp self_command)
  KernelSpec spec;                   ///< the kernel as it was checked
  std::string ref;                   ///< ref.py
  std::optional<double> atol, rtol;  ///< --atol / --rtol when given
  std::string output_dir;            ///< the check's folder; the runs write to OUTPUT_DIR/sanitizer/
  bool cutlass_is_user = false;      ///< the kernel is a CUTLASS one: cutlass:: kernels are the user's
};

/// compute-sanitizer's path (core/tools.hpp compute_sanitizer_path). Throws usage_error (exit 2)
/// when there is none, saying to install the CUDA toolkit's compute-sanitizer (or set
/// KPROF_COMPUTE_SANITIZER); called before any GPU work.
std::string require_compute_sanitizer();

/// Seconds one kernel call may take in the child (--timeout there): 10 x `kernel_timeout_s`, as the
/// tools slow a kernel down by up to 100x.
double sanitized_call_timeout_s(double kernel_timeout_s);

/// Seconds one tool's whole run may take before it is stopped: max(600, 20 x `kernel_timeout_s`).
double sanitizer_run_timeout_s(double kernel_timeout_s);

/// The child's request: the kernel as checked (`kernels` = {spec.kernel}, its .so, dimensions,
/// nvcc flags, seed and GPU; call limit sanitized_call_timeout_s; no --build: the check built it),
/// `ref`, --atol / --rtol when given, trials 1, output_dir `child_output_dir`, no --sanitize, and
/// this process's host (core/host_json.hpp).
api::CheckRequest sanitizer_child_request(const SanitizeRequest& req, const std::string& child_output_dir);

/// The whole command of one tool: {sanitizer, "--tool", T, "--print-limit", "20", ("--racecheck-report",
/// "all" for racecheck), "--target-processes", "all", kprof, "__check", "--request", `request_path`}.
std::vector<std::string> sanitizer_command(const SanitizeRequest& req, SanitizerTool tool,
                                           const std::string& request_path);

/// The child's outcome document folded into the tool's result `r`: when the child could not run
/// the kernel (exit 2, a usage or input error) the tool gave no verdict, and r.error says so with
/// the child's own message. A child that checked the kernel (exit 0 or 1, a failed check is what a
/// tool finds) or wrote no outcome (killed by the tool: its output says why) leaves `r` as judged.
void apply_child_outcome(SanitizerToolResult& r, const ChildOutcome& child);

/// Runs every tool in turn (each limited to sanitizer_run_timeout_s, its output captured, the
/// process group stopped on a timeout: never a hang), the child's request in
/// OUTPUT_DIR/sanitizer/T.request.json and its outcome document in OUTPUT_DIR/sanitizer/T.outcome.json,
/// saves each output to OUTPUT_DIR/sanitizer/T.log and judges it (with apply_child_outcome) (stages/verify/sanitizer.hpp judge_sanitizer_run).
/// A failing run is a result, not an exception; throws Error (exit 2) only when a log cannot be written.
std::vector<SanitizerToolResult> run_sanitizers(const SanitizeRequest& req);

/// Runs the tools for a finished check and puts their results into `r` (r.sanitizer; r.pass
/// becomes false when a tool fails). Run after a kernel fault too (memcheck then says where the
/// illegal access is); skipped, with r.sanitizer_skipped saying why and r.pass false, when the
/// kernel hung in the check (a child would hang the same way). Prints one progress line per tool.
/// Throws Error (exit 2) only when a log cannot be written.
void add_sanitizer_findings(CheckResult& r, const SanitizeRequest& req);

}  // namespace kprof
