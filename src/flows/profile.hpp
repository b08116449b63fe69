// The profiling flow shared by `kprof profile` and `kprof run`: timing (CUDA events + CUPTI),
// then Nsight Compute on kprof's own runner, then the classification and the reports
// (ncu_summary.md, ncu_details.md, profile.json, profile.ncu-rep).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stages/analysis/analyze.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/ncu/runner.hpp"
#include "kernel/kernel_instance.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

/// Whether profile/run collect the source-level data (ncu's SourceCounters section and
/// --import-source yes) for the hot lines when neither --source nor --no-source is given. Costs a few
/// replay passes (20 -> 23 for one 4 Mi-element kernel on the H200: 3.2 -> 3.7 s); the GPU suite's
/// `hotlines` stage measures it on a ~10 us and a ~10 ms kernel (docs/gpu-runs.md).
inline constexpr bool kCollectSourceByDefault = true;

/// How to profile.
struct ProfileSettings {
  TimingOptions timing;
  bool run_ncu = true;               ///< false: timing only (--no-ncu)
  std::string metric_set = "kprof";  ///< --metrics
  double ncu_timeout_s = 900;        ///< --ncu-timeout
  bool show_progress = true;
  bool source = kCollectSourceByDefault;  ///< --source / --no-source: collect and report the hot lines
  bool sass = false;                 ///< --sass: list each hot line's SASS instructions in ncu_summary.md
  size_t hot_lines_top = 10;         ///< hot lines per kernel
  /// ref.py whose optional flops(**dims) / bytes_moved(**dims) declare the work for the time
  /// bound (`kprof run` passes its --ref); "" = the buffers alone.
  std::string ref;
  bool roofline = true;              ///< write DIR/roofline.svg and .png
};

/// What one profile produced.
struct ProfileOutcome {
  TimingResult timing;
  NcuRunResult ncu;                       ///< the ncu run (failure set when it failed or was skipped)
  std::optional<NcuAnalysis> analysis;    ///< parsed metrics and verdict, when ncu succeeded
  std::vector<std::string> missing_required;  ///< required metrics missing or NaN (classification skipped)
  bool classified = false;                ///< a verdict was produced
  std::string failure;                    ///< one line when not classified ("" otherwise)
  std::string hint;
  std::vector<std::string> notes;         ///< what the assessment could not do (achievable bandwidth, ref.py's work)
  std::string roofline_note;              ///< why roofline.svg was not written ("" when it was)
  nlohmann::json json;                    ///< profile.json as written
  std::map<int, KernelHotLines> hot_lines;  ///< by ncu launch ID, when the source data was read
  std::string hot_lines_note;             ///< why there are none ("" when there are)
};

/// Profiles `inst` (already loaded on the selected GPU) and writes DIR/ncu_summary.md,
/// DIR/ncu_details.md, DIR/profile.json, DIR/profile.ncu-rep and DIR/roofline.svg/.png (with
/// the time bound, the ranked findings and kprof's timing against ncu's: stages/analysis/assess.hpp). `header` rows describe the
/// kernel (kernel/load.hpp kernel_header_rows). Timing is always written, even when ncu fails
/// (then the summary says why and what to do, and no class is given). Throws Error when timing
/// itself fails (a fault, a hang: exit 1) or for bad options (exit 2).
ProfileOutcome run_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& settings,
                           const std::string& out_dir, std::vector<std::pair<std::string, std::string>> header);

}  // namespace kprof
