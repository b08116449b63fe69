// What kprof measured beyond ncu, gathered for the assessment of a profile (stages/analysis/assess.hpp):
// the least work of the call (its buffers, ref.py's flops / bytes_moved), the measured kernel
// time, the SM clock and NVML samples of the timed calls, the achievable DRAM bandwidth (measured
// once per GPU and cached), and ncu's rule results when the report holds them.
#pragma once

#include <optional>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "stages/analysis/assess.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "kernel/kernel_instance.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

/// The work model of `inst`'s buffers (every input read once, every output written once, the
/// outputs' dtype for the compute ceiling), replaced or completed by ref.py's declared work when
/// `ref` (a path, may be "") declares it. Without flops(**dims), the FLOPs PyTorch's
/// FlopCounterMode counted while the check ran ref.py's reference for this call (same buffers
/// and scalars; stages/verify/flop_count.hpp), when it did and counted more than 0. A ref.py
/// function that raises adds its error to `notes` and is ignored (the profile goes on).
WorkModel call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                    std::vector<std::string>& notes);

/// What kprof measured for one profile, without ncu's rule results: `work` (call_work), the
/// kernel time (CUPTI median, else the call time), NVML's mean SM clock and samples, and the
/// achievable bandwidth of spec.gpu (its note, when unknown, goes to `notes`).
AnalysisContext measured_context(const WorkModel& work, const KernelSpec& spec, const TimingResult& timing,
                                 std::vector<std::string>& notes);

/// The .ncu-rep of one profile, read once through ncu_report (stages/ncu/ncu_rep.hpp) with what
/// the profile needs: the source counters for the hot lines, ncu's rule results for the assessment.
struct ProfileReportRead {
  std::string path;               ///< the .ncu-rep
  bool source = false;            ///< the source counters were asked for
  bool rules = false;             ///< the rule results were asked for
  std::optional<NcuRep> rep;      ///< the report; nullopt when it could not be read
  std::string unavailable;        ///< no ncu_report module imports: where it looked ("" otherwise)
  std::string error;              ///< ncu_report could not read the file: its error ("" otherwise)
  std::optional<double> seconds;  ///< how long the read took (s), when it was read
};

/// Reads `report` once: the launches' metrics (so ncu need not export it to CSV:
/// NcuRunOptions::read_report), the source counters when `source` (their SASS text deferred:
/// hot_lines_of_report) and the rule results when `rules`. Never throws: a missing module or a
/// failed read is recorded in the result.
ProfileReportRead read_profile_report(const std::string& report, bool source, bool rules);

/// Imports Nsight Compute's `ncu_report` module on another thread while ncu runs (about 0.3 s, and
/// the embedded Python's start for a cuda-cpp kernel, which happens on this thread first), so the
/// report's one read after ncu does not wait for it. With `disassembler` (the source counters are
/// collected, so the hot lines will want SASS text) it then sets up ncu_report's disassembler on
/// kprof's own small report (warm_disassembler_early: about 0.45 s on the H200 that would else
/// follow the read). Never throws: a module that does not import is found again, and said, by the
/// read.
class NcuReportPrewarm {
 public:
  explicit NcuReportPrewarm(bool disassembler);
  ~NcuReportPrewarm() { wait(); }
  NcuReportPrewarm(const NcuReportPrewarm&) = delete;
  NcuReportPrewarm& operator=(const NcuReportPrewarm&) = delete;
  /// Waits for the import (call before reading, on any thread).
  void wait() {
    if (done_.valid()) done_.wait();
  }

 private:
  std::shared_future<void> done_;
};

/// ncu's rule results of `rep` into ctx.rules (only the launches whose ID is in `ids`, when given),
/// or why there are none into ctx.rules_note: the metric set collects none (no_rules_note), or no
/// report could be read (`why_not`). Used by a profile of its own and by each version of a session.
void attach_rules(AnalysisContext& ctx, const std::string& metric_set, const NcuRep* rep, const std::set<int>* ids,
                  const std::string& why_not);

/// measured_context plus ncu's rule results from `read` (present only when `metric_set` collects
/// ncu sections: "sections" or "full"; else rules_note says why there are none).
AnalysisContext profile_context(const WorkModel& work, const KernelSpec& spec, const TimingResult& timing,
                                const ProfileReportRead& read, const std::string& metric_set,
                                std::vector<std::string>& notes);

/// The rules_note of a profile whose metric set makes ncu apply no rules ("kprof"); "" otherwise.
std::string no_rules_note(const std::string& metric_set);

}  // namespace kprof
