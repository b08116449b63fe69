// What kprof measured beyond ncu, gathered for the assessment of a profile (stages/analysis/assess.hpp):
// the least work of the call (its buffers, ref.py's flops / bytes_moved), the measured kernel
// time, the SM clock and NVML samples of the timed calls, the achievable DRAM bandwidth (measured
// once per GPU and cached), and ncu's rule results when the report holds them.
#pragma once

#include <string>
#include <vector>

#include "stages/analysis/assess.hpp"
#include "kernel/kernel_instance.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

/// The work model of `inst`'s buffers (every input read once, every output written once),
/// replaced or completed by ref.py's declared work when `ref` (a path, may be "") declares it.
/// A ref.py function that raises adds its error to `notes` and is ignored (the profile goes on).
WorkModel call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                    std::vector<std::string>& notes);

/// What kprof measured for one profile, without ncu's rule results: `work` (call_work), the
/// kernel time (CUPTI median, else the call time), NVML's mean SM clock and samples, and the
/// achievable bandwidth of spec.gpu (its note, when unknown, goes to `notes`).
AnalysisContext measured_context(const WorkModel& work, const KernelSpec& spec, const TimingResult& timing,
                                 std::vector<std::string>& notes);

/// measured_context plus ncu's rule results of `report` (read only when `metric_set` collects ncu
/// sections: "sections" or "full"; else rules_note says why there are none).
AnalysisContext profile_context(const WorkModel& work, const KernelSpec& spec, const TimingResult& timing,
                                const std::string& report, const std::string& metric_set,
                                std::vector<std::string>& notes);

/// The rules_note of a profile whose metric set makes ncu apply no rules ("kprof"); "" otherwise.
std::string no_rules_note(const std::string& metric_set);

}  // namespace kprof
