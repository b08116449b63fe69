// The correctness check (the seed's "Correctness Check"): the kernel's FIRST call into
// fresh buffers is compared with the reference computed on copies of exactly the pre-call
// contents. Around it: a second call into sentinel-filled outputs to find never-written elements,
// guard zones for writes past a buffer, const inputs compared bit-wise, kernel faults caught.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/guarded_call.hpp"
#include "kernel/kernel_instance.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/verify/compare.hpp"
#include "stages/verify/precision.hpp"
#include "stages/verify/reference_runner.hpp"
#include "stages/verify/sanitizer.hpp"

namespace kprof {

/// Default of --trials: 2 (the timing's second input set is checked too).
inline constexpr int kDefaultTrials = 2;

/// Options of `kprof check` that shape the comparison.
struct CheckOptions {
  uint64_t seed = kDefaultSeed;             ///< trial t uses seed + t
  int trials = kDefaultTrials;              ///< fresh random inputs per trial; any failing trial fails
  double timeout_s = kDefaultCallTimeoutS;  ///< per kernel call (host call + GPU work), seconds
  std::optional<double> atol;               ///< --atol: wins over ref.py and the dtype default
  std::optional<double> rtol;               ///< --rtol
};

/// An input the kernel changed although it must not (a `const` parameter of solve, or an input
/// of a Python kernel that is not listed in its outputs).
struct ModifiedInput {
  std::string name;
  size_t elements = 0;
  std::vector<size_t> first;  ///< first indices that changed
  bool fails = true;          ///< const pointers fail; Python inputs only warn
};

/// One trial: one seed, one first call.
struct TrialResult {
  uint64_t seed = 0;
  std::vector<OutputComparison> outputs;
  std::vector<GuardViolation> guards;
  std::vector<ModifiedInput> modified_inputs;
  /// A third call on the same fresh inputs (prepare(seed) again), its outputs against the same
  /// reference: a kernel right only on its first call (state left behind, a race) fails here.
  std::vector<OutputComparison> repeat;
  bool pass = false;
};

/// The reference's answer for one trial's seed, kept for later checks of the same inputs (the
/// timing's last call on input set seed + 1 is compared with it).
struct ExpectedOutputs {
  uint64_t seed = 0;
  std::vector<std::string> names;  ///< the outputs (BufferRole::Output), in buffer order
  std::vector<HostArray> values;
  std::vector<Tolerance> tolerances;
};

/// Everything `kprof check` reports.
struct CheckResult {
  std::vector<TrialResult> trials;
  std::optional<KernelFault> fault;  ///< set when a call faulted; trials then stop
  int fault_trial = -1;
  bool pass = false;
  std::vector<std::string> warnings;
  std::string reference_origin;
  /// How the reference was called, once per distinct line over the trials (flat or shaped
  /// outputs, a returned tensor matched to a buffer; docs/REFERENCE.md).
  std::vector<std::string> reference_notes;
  /// Non-const buffers that neither the kernel nor the reference changed: treated as inputs.
  std::vector<std::string> treated_as_inputs;
  ReferencePrecision reference_precision;     ///< PyTorch's float32 matmul settings during the reference
  std::vector<PrecisionDiagnosis> precision;  ///< one per failing float output (see diagnose_precision)
  /// Where the check's time went, seconds summed over the trials, in order: "prepare" (fresh
  /// seeded buffers, both calls' prepare), "first call" (guarded, until the GPU is idle),
  /// "snapshots" (the reference's device copies, host copies, the device-side input comparison),
  /// "reference wait" (ref.py's load still running in the background), "reference" (ref.py's
  /// call and its outputs to the host), "sentinel call" (fill, call, read-back), "compare".
  std::vector<std::pair<std::string, double>> phases_s;
  size_t host_copy_bytes =
      0;  ///< bytes the check copied from the GPU to the host (snapshots, not the reference's outputs)
  std::vector<ExpectedOutputs> expected;  ///< per passing trial
  /// `kprof check --sanitize`: one result per compute-sanitizer tool, in the order given (empty
  /// without --sanitize). A failing tool makes `pass` false (flows/sanitize.hpp).
  std::vector<SanitizerToolResult> sanitizer;
  /// Why the --sanitize runs were skipped ("the kernel hung: ..."); "" when they ran or were not asked for.
  std::string sanitizer_skipped;
};

/// Compares `outputs` (named `names`, e.g. the timing's last call, TimingResult::last_outputs)
/// with the expected answer of the same seed. Returns one comparison per expected output found
/// by name; empty when `exp` names none of them.
std::vector<OutputComparison> compare_with_expected(const ExpectedOutputs& exp, const std::vector<std::string>& names,
                                                    const std::vector<HostArray>& outputs);

/// Picks the tolerance of one output: --atol/--rtol when given, else ref.py's, else the dtype
/// default (stages/verify/compare.hpp default_tolerance). Each of atol and rtol is resolved on its own.
Tolerance resolve_tolerance(DType dtype, const CheckOptions& opts, const ReferenceRunner* ref);

/// Runs the check. Per trial: the first call into fresh buffers, then the reference on copies of
/// the pre-call contents, then a second call into outputs pre-filled with the sentinel (only the
/// buffers the first call or the reference changed: a non-const buffer that neither changed is an
/// input, and the sentinel would feed the kernel garbage). `reference` is called after the first
/// trial's first kernel call, so the caller may load ref.py (and import PyTorch) in the background
/// meanwhile; it throws Error (exit 2) when ref.py is broken. Throws Error for input errors; a
/// kernel fault is returned, not thrown.
CheckResult run_check(KernelInstance& inst, const std::function<ReferenceRunner&()>& reference,
                      const CheckOptions& opts);

/// One trial as run_check runs it: fills `tr` (its seed already set: opts.seed + t) and what the
/// whole check collects in `res`; returns the kernel fault that ended it, if one did.
using CheckTrial = std::function<std::optional<KernelFault>(int t, TrialResult& tr, CheckResult& res)>;

/// run_check's frame over its trials, without the GPU: max(1, opts.trials) trials in turn, the one
/// fault exit (a fault ends the check: that trial is the last, res.fault and res.fault_trial name
/// it), then the verdict (pass: no fault and every trial passed) and the precision diagnosis per
/// output. run_check drives it with its GPU trial (first call, reference, sentinel call, compare,
/// repeat); the CPU tests drive it with fake trials. What `trial` throws comes out.
CheckResult run_check_trials(const CheckOptions& opts, const CheckTrial& trial);

}  // namespace kprof
