// How `kprof profile` and `kprof run` profile one version (ProfileSettings), apart from the flow
// (flows/profile.hpp) so that the ncu session pieces (ncu_options, ncu_standby) need not include it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stages/analysis/hot_lines.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/timing/timing.hpp"
#include "stages/verify/check.hpp"

namespace kprof {

/// How to profile.
struct ProfileSettings {
  TimingOptions timing;
  bool run_ncu = true;                         ///< false: timing only (--no-ncu)
  std::string metric_set = kDefaultMetricSet;  ///< --metrics
  double ncu_timeout_s = kDefaultNcuTimeoutS;  ///< --ncu-timeout
  bool show_progress = true;
  bool source = kCollectSourceByDefault;  ///< --source / --no-source: collect and report the hot lines
  bool sass = false;                      ///< --sass: list each hot line's SASS instructions in ncu_summary.md
  /// --stock-source-section (hidden, for A/B measurements of kprof's section): ncu's stock
  /// SourceCounters section instead of kprof's KprofSourceCounters.
  bool stock_source_section = false;
  size_t hot_lines_top = kDefaultHotLinesTop;  ///< hot lines per kernel
  /// ref.py whose optional flops(**dims) / bytes_moved(**dims) declare the work for the time
  /// bound (`kprof run` passes its --ref); "" = the buffers alone.
  std::string ref;
  bool roofline = true;     ///< write DIR/roofline.svg and .png
  bool html = true;         ///< write DIR/report.html (--no-html turns it off)
  bool html_source = true;  ///< the page shows source lines and SASS (--html-no-source leaves them out)
  /// The check's reference answers (CheckResult::expected) of this version, when it was checked in
  /// this process: the timing keeps its last call's outputs and compares them (integrity block).
  const std::vector<ExpectedOutputs>* expected = nullptr;
};

}  // namespace kprof
