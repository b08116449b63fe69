// The profile reports when no classification could be made (ncu failed, was skipped, or returned
// required metrics missing): the timing is still written, with what went wrong and what to do.
#pragma once

#include <string>

#include "stages/ncu/metric_table.hpp"
#include "report/ncu_report.hpp"

namespace kprof {

/// ncu_summary.md with the header table, the timing section, and a "## Bottleneck" section saying
/// it was not classified, why (`failure`) and what to do (`hint`). Pure.
std::string unclassified_summary(const NcuReportHeader& header, const std::string& failure, const std::string& hint);

/// ncu_details.md when no classification was made: every metric of `table` when there is one
/// (may be null), then ncu's own output (`ncu_log`, which holds the runner's error). Pure.
std::string unclassified_details(const NcuReportHeader& header, const std::string& ncu_log, const MetricTable* table);

}  // namespace kprof
