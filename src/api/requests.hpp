// The typed requests of the kernel commands (check, profile, run and the hidden __runner): what
// the command line parses into (cli/ registers each field from its row of api/options.hpp), what
// the flows take, and what a child receives as JSON (to_json / from_json, with kprof's version).
// Each field's default is the constant of the stage that owns it; -1 / 0 / "" mark "not given"
// where the default is a rule (api/options.cpp states the rule).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "api/defaults.hpp"
#include "core/host.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/timing/noise.hpp"
#include "stages/timing/timing.hpp"
#include "stages/verify/check.hpp"

namespace kprof::api {

/// The kernel, its inputs and where the reports go; `kernels` holds one path (check/profile) or
/// several (run).
struct KernelRequest {
  std::vector<std::string> kernels;
  KernelSpec spec;                    ///< everything but `kernel` and `so_path` (filled per kernel)
  std::vector<std::string> so_paths;  ///< --so: none, or one per kernel in order (run: one per version)
  std::string ref;                    ///< --ref ref.py
  double atol = -1, rtol = -1;        ///< --atol / --rtol; < 0 = not given (the rule: ref.py, else the dtype)
  int trials = kDefaultTrials;        ///< --trials
  std::string output_dir = kDefaultOutputDir;
  bool no_html = false;  ///< --no-html: no OUTPUT_DIR/report.html (check, profile, run)
};

/// The timing and ncu part of profile and run.
struct ProfileRequest {
  int warmup_calls = -1;                                         ///< --warmup N calls (-1: by time)
  double warmup_ms = kDefaultWarmupMs;                           ///< --warmup-ms
  int iters = 0;                                                 ///< --iters (0: until the noise target)
  bool iters_given = false;                                      ///< --iters was given (its budget is longer)
  double time_budget_ms = -1;                                    ///< --time-budget-ms; < 0 = the rule
  double noise_target_pct = 100 * kDefaultNoiseTarget;           ///< --noise-target, percent
  double throttle_threshold_pct = 100 * kDefaultClockFloorFrac;  ///< --throttle-threshold, percent
  bool discard_throttled = false;                                ///< --discard-throttled
  int input_sets = kDefaultInputSets;                            ///< --input-sets
  bool no_l2_flush = false;                                      ///< --no-l2-flush
  std::string metric_set = kDefaultMetricSet;                    ///< --metrics kprof|sections|full
  double ncu_timeout_s = kDefaultNcuTimeoutS;                    ///< --ncu-timeout
  bool no_ncu = false;                                           ///< --no-ncu: timing only
  bool source = kCollectSourceByDefault;                         ///< --source / --no-source
  bool sass = false;                                             ///< --sass
  bool stock_source_section = false;                             ///< --stock-source-section (hidden)
  size_t top = kDefaultHotLinesTop;                              ///< --top: hot lines per kernel
  bool no_roofline = false;                                      ///< --no-roofline
  bool html_no_source = false;  ///< --html-no-source: report.html without source lines and SASS
};

/// The checks one request must pass before anything runs (the cross-option rules the command
/// line does not state through CLI11): trials >= 1, --so once per kernel (run: none or one per
/// version), the timing numbers in their rows' ranges. Throws Error (exit 2) naming the option.
void validate(const KernelRequest& k, bool several);
void validate(const ProfileRequest& p);

/// JSON of a request, every field under its table name, plus {"kprof_version"}; from_json reads
/// it back (missing fields keep their defaults). Throws Error (exit 2) for a field of another type.
nlohmann::json to_json(const KernelRequest& k);
nlohmann::json to_json(const ProfileRequest& p);
KernelRequest kernel_request_from_json(const nlohmann::json& j);
ProfileRequest profile_request_from_json(const nlohmann::json& j);

/// What `kprof __runner` (one version under ncu) and each version of `kprof __session`'s plan
/// receive: the kernel's spec and the calls before the profiled one (the timing's warm-up calls,
/// clamped to 3..20 by the flow).
struct RunnerRequest {
  KernelSpec spec;
  int warmup_calls = 3;
  Host host;  ///< the parent's host (core/host_json.hpp adopt_host): the child does not discover it again
};

/// A kernel file, warmup_calls >= 0, the call limit in its row's range. Throws Error (exit 2).
void validate(const RunnerRequest& r);

/// JSON of a runner request: the spec's fields as in a KernelRequest, "kernel", "so_path",
/// "warmup_calls", "host" (core/host_json.hpp), {"command": "__runner", "kprof_version"}; the reader takes it back and throws
/// Error (exit 2) for a field of another type or a JSON that is not an object.
nlohmann::json to_json(const RunnerRequest& r);
RunnerRequest runner_request_from_json(const nlohmann::json& j);

}  // namespace kprof::api
