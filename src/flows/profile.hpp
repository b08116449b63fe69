// The profiling flow shared by `kprof profile` and `kprof run`: timing (CUDA events + CUPTI),
// then Nsight Compute on kprof's own runner, then the classification and the reports
// (ncu_summary.md, ncu_details.md, profile.json, profile.ncu-rep).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device/buffer_view.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "stages/analysis/bound.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/ncu/runner.hpp"
#include "kernel/kernel_instance.hpp"
#include "kernel/kernel_spec.hpp"
#include "report/ncu_report.hpp"
#include "report/roofline_chart.hpp"
#include "stages/results/versions.hpp"
#include "stages/timing/timing.hpp"
#include "stages/verify/check.hpp"
#include "flows/ncu_options.hpp"
#include "flows/profile_settings.hpp"

namespace kprof {

class StandbySession;  // flows/ncu_standby.hpp

/// Adds the "last timed outputs" integrity check to `t`: its last timed call's outputs
/// (t.last_outputs) against the reference answer of the same seed in `expected`; Fail when they
/// differ, NotRun when no answer has that seed. Drops the host copies. Never throws for a mismatch.
void check_last_outputs(TimingResult& t, const std::vector<ExpectedOutputs>& expected);

/// Adds a note to `t` when its calls launch more than one kernel: ncu flushes the caches before
/// each kernel (--cache-control all), the timing once per call, and the note says what differs.
void note_cache_control(TimingResult& t);

/// The console line after timing: median call time, kept and made calls, what stopped the first
/// pass and its relative standard error, the kernel time, throttled and discarded calls.
std::string timing_progress_line(const TimingResult& t);

/// What one profile produced.
struct ProfileOutcome {
  TimingResult timing;
  NcuRunResult ncu;                           ///< the ncu run (failure set when it failed or was skipped)
  std::optional<NcuAnalysis> analysis;        ///< parsed metrics and verdict, when ncu succeeded
  std::vector<std::string> missing_required;  ///< required metrics missing or NaN (classification skipped)
  bool classified = false;                    ///< a verdict was produced
  std::string failure;                        ///< one line when not classified ("" otherwise)
  std::string hint;
  std::vector<std::string> notes;           ///< what the assessment could not do (achievable bandwidth, ref.py's work)
  std::string roofline_note;                ///< why roofline.svg was not written ("" when it was)
  std::optional<RooflineJob> roofline_job;  ///< the chart started by start_profile_chart, if it was
  std::string hot_lines_reader;             ///< where the ncu_report module came from ("" when not read)
  std::optional<double>
      hot_lines_read_s;  ///< seconds the one read of the .ncu-rep took (source counters, and rule results with --metrics sections|full)
  nlohmann::json json;                      ///< profile.json as written
  std::map<int, KernelHotLines> hot_lines;  ///< by ncu launch ID, when the source data was read
  std::string hot_lines_note;               ///< why there are none ("" when there are)
  std::vector<BufferView> buffers;          ///< the kernel's buffers as profiled (profile.json "inputs")
};

/// The standby ncu session of one profile (flows/ncu_standby.hpp StandbySession::for_profile) into
/// `out_dir` (which must exist), when ncu is to run and is found; nullptr otherwise, or when it
/// could not start (a warning then says why, and ncu starts after the timing). Started as soon as
/// the spec is valid and the GPU selected, ncu's start-up and its process's CUDA context (and
/// Python imports) overlap kprof's own kernel load, prepare() and timing.
std::unique_ptr<StandbySession> start_profile_standby(const KernelSpec& spec, const ProfileSettings& settings,
                                                      const std::string& out_dir);

/// Timing, ncu, the assessment and the hot lines of `inst` (prepared by the caller): measures
/// only; ncu writes its own profile.ncu-rep into `out_dir`, kprof writes nothing here. Throws
/// Error when timing itself fails (exit 1) or for bad options (exit 2).
/// With `chart_title` (the header's "Kernel" row) the roofline chart starts as soon as the call is
/// classified, before the hot lines are read (their SASS text waits for ncu_report's disassembler
/// set-up, about 0.45 s, which the chart's drawing then overlaps).
/// `standby`: the caller's start_profile_standby (taken over; it may hold nullptr: ncu then starts
/// after the timing); without it measure_profile starts one itself before the timing.
ProfileOutcome measure_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& settings,
                               const std::string& out_dir, const std::string* chart_title = nullptr,
                               std::unique_ptr<StandbySession>* standby = nullptr);

/// The timing step of a profile on `inst` (prepared by the caller), with its progress lines.
/// Throws like measure_timing (exit 1 for a fault or hang, 2 for bad options).
TimingResult time_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& settings);

/// The outcome of a profile whose ncu step was skipped (--no-ncu).
void skip_ncu(ProfileOutcome& out);

/// The request `kprof __runner` (and a version of `kprof __session`'s plan) gets for `spec`: its
/// spec and the timing's warm-up calls, clamped to 3..20 (api/requests.hpp RunnerRequest, as JSON).
nlohmann::json runner_request(const KernelSpec& spec, const TimingResult& timing);

/// ncu in a session of its own (`kprof __runner` under ncu, report DIR/profile.ncu-rep) for a
/// kernel whose timing is in `out`; then the classification and the hot lines. `work` is the
/// call's least work (flows/assess_context.hpp call_work).
/// With `standby` (started before the timing: StandbySession::for_profile) the session is that
/// one, released now; profile.json's ncu command is then the plain `__runner` line it stands for.
/// `chart_title`: as for measure_profile.
void profile_own_session(ProfileOutcome& out, const KernelSpec& spec, const ProfileSettings& settings,
                         const std::string& out_dir, const WorkModel& work, StandbySession* standby = nullptr,
                         const std::string* chart_title = nullptr);

/// What the report of a session of several versions gave, read once for all of them.
struct SharedReport {
  const NcuRep* rep = nullptr;  ///< read through ncu_report (source counters, rule results, NVTX); nullptr when not
  std::string why_not;          ///< why it was not read
  double read_s = 0;            ///< seconds the one read took
};

/// The classification of one version's rows of a shared session (out.ncu already describes the
/// session; `rows` holds the version's launches with their report IDs), with ncu's rule results
/// of those launches only, from `shared`. The hot lines follow apart (session_hot_lines), so the
/// charts can start in between.
void classify_session_rows(ProfileOutcome& out, const KernelSpec& spec, const ProfileSettings& settings,
                           const WorkModel& work, MetricTable rows, const SharedReport& shared);

/// The hot lines of a version classified by classify_session_rows (its launches' IDs are those of
/// out.analysis), from `shared`; or out.hot_lines_note saying why there are none. Their SASS text
/// waits for ncu_report's disassembler set-up (about 0.45 s once per process).
void session_hot_lines(ProfileOutcome& out, const ProfileSettings& settings, const SharedReport& shared);

/// Starts drawing the roofline chart of a classified `out` into `out_dir` (settings.roofline;
/// report/roofline_chart.hpp start_roofline: on a chart worker when they run), so several
/// versions' charts are drawn at once; write_profile_reports waits for it. Never throws.
void start_profile_chart(const std::string& out_dir, const ProfileSettings& settings, ProfileOutcome& out,
                         const std::vector<std::pair<std::string, std::string>>& header);

/// Renders and writes DIR/ncu_summary.md, ncu_details.md, roofline.svg/.png and profile.json
/// (each whole, once) from `out`; sets out.json and out.roofline_note. `header` rows describe the
/// kernel (kernel/load.hpp kernel_header_rows).
void write_profile_reports(const std::string& out_dir, const KernelSpec& spec, const ProfileSettings& settings,
                           ProfileOutcome& out, std::vector<std::pair<std::string, std::string>> header);

/// profile.json of the outcome: its typed values handed to the renderer (report/profile_json.hpp).
nlohmann::json profile_json(const std::string& out_dir, const KernelSpec& spec, const ProfileSettings& s,
                            const ProfileOutcome& out, const NcuReportHeader& header);

/// The headline of one profile as a version row (correctness: unchecked; `kprof compare` reads it
/// from profile.json's "summary", with correctness.json beside it when present).
VersionRow profile_summary_row(const std::string& out_dir, const KernelSpec& spec, const ProfileOutcome& out);

/// measure_profile then write_profile_reports: profiles `inst` (loaded on the selected GPU and
/// prepared once by the caller: timing uses those buffers as they are, so setup() of a Python
/// kernel runs once) and writes DIR/ncu_summary.md, DIR/ncu_details.md, DIR/profile.json,
/// DIR/profile.ncu-rep and DIR/roofline.svg/.png (with the time bound, the ranked findings and
/// kprof's timing against ncu's: stages/analysis/assess.hpp). `header` rows describe the kernel
/// (kernel/load.hpp kernel_header_rows). Timing is always written, even when ncu fails (then the
/// summary says why and what to do, and no class is given). Throws Error when timing itself fails
/// (a fault, a hang: exit 1) or for bad options (exit 2).
/// `standby`: as for measure_profile (`kprof profile` starts it before loading the kernel).
ProfileOutcome run_profile(KernelInstance& inst, const KernelSpec& spec, const ProfileSettings& settings,
                           const std::string& out_dir, std::vector<std::pair<std::string, std::string>> header,
                           std::unique_ptr<StandbySession>* standby = nullptr);

}  // namespace kprof
