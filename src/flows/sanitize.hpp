// kprof check --sanitize: after the normal check, the same kernel once more per tool
// under NVIDIA compute-sanitizer, as a child `kprof check --trials 1` whose reports go to a scratch
// folder; the tool's findings join the check's result (correctness.md / .json).
#pragma once

#include <optional>
#include <string>
#include <vector>

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

/// The child's words after the program: {"check", KERNEL, the spec's options (spec_to_args, with
/// --timeout sanitized_call_timeout_s), "--ref", REF, --atol / --rtol when given, "--trials", "1",
/// "-o", `child_output_dir`, then "--" and the nvcc flags when there are any}. No --sanitize.
std::vector<std::string> sanitizer_child_args(const SanitizeRequest& req, const std::string& child_output_dir);

/// The whole command of one tool: {sanitizer, "--tool", T, "--print-limit", "20", ("--racecheck-report",
/// "all" for racecheck), "--target-processes", "all", kprof, sanitizer_child_args(req,
/// OUTPUT_DIR/sanitizer/T)}.
std::vector<std::string> sanitizer_command(const SanitizeRequest& req, SanitizerTool tool);

/// Runs every tool in turn (each limited to sanitizer_run_timeout_s, its output captured, the
/// process group stopped on a timeout: never a hang), saves each output to
/// OUTPUT_DIR/sanitizer/T.log and judges it (stages/verify/sanitizer.hpp judge_sanitizer_run).
/// A failing run is a result, not an exception; throws Error (exit 2) only when a log cannot be written.
std::vector<SanitizerToolResult> run_sanitizers(const SanitizeRequest& req);

/// Runs the tools for a finished check and puts their results into `r` (r.sanitizer; r.pass
/// becomes false when a tool fails). Run after a kernel fault too (memcheck then says where the
/// illegal access is); skipped, with r.sanitizer_skipped saying why and r.pass false, when the
/// kernel hung in the check (a child would hang the same way). Prints one progress line per tool.
/// Throws Error (exit 2) only when a log cannot be written.
void add_sanitizer_findings(CheckResult& r, const SanitizeRequest& req);

}  // namespace kprof
