// The versions `kprof run` times before their checks: compiled versions loaded while
// ref.py still imports PyTorch are timed at once and checked, in order, once it is there.
#include "flows/run/run_workflow.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/implementation.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "device/cuda.hpp"
#include "flows/assess_context.hpp"
#include "flows/report_files.hpp"
#include "kernel/guarded_call.hpp"
#include "kernel/load.hpp"
#include "stages/analysis/derived.hpp"
#include "stages/verify/reference.hpp"

namespace kprof {

void RunWorkflow::note_stop(const std::string& name) {
  if (!why_stop_.empty()) return;
  if (ports_.gpu_lost())
    why_stop_ = name + " left the GPU unusable (hung kernel or lost context)";
  else if (ports_.reference_failed())
    why_stop_ = "ref.py could not be loaded (see " + name + ")";
}

bool RunWorkflow::may_time_before_check(const KernelInstance& inst) const {
  if (!req_.one_ncu_session || !req_.profile.run_ncu || req_.decide.enabled || is_python_impl(inst.implementation()))
    return false;  // --decide keeps every version for its rounds
  if (ports_.reference_ready()) return false;
  size_t held = buffer_bytes(inst);
  for (const auto& d : deferred_) held += d.bytes;
  for (const auto& a : decide_arms_) held += buffer_bytes(*a.inst);  // kept for the rounds
  const size_t free = ports_.free_device_bytes();
  return free > 0 && 2 * held <= free;
}

void RunWorkflow::time_before_check(const KernelSpec& spec, std::unique_ptr<KernelInstance> inst, VersionRow& row) {
  ports_.wait_all_builds();  // no nvcc on the CPU while calls are timed
  ports_.wait_gpu_probes();  // nor the environment's ncu probe on the GPU
  print_progress(fmt::format("[{}] timing while ref.py loads (its check follows)", row.name));
  auto t0 = Clock::now();
  ProfileSettings ps = profile_settings();
  ps.show_progress = false;
  DeferredCheck d{out_.rows.size(), kNoTiming, spec, nullptr, buffer_bytes(*inst), 0};
  bool timed = step(row, "profile", t0, [&] {
    inst->prepare(spec.seed);
    pending_.push_back(ports_.time_for_session(*inst, spec, ps, row.name, row.folder, /*with_work=*/false));
    pending_rows_.push_back(d.row);
    d.pending = pending_.size() - 1;
  });
  if (stopped_) return;
  d.timing_s = seconds_since(t0);
  if (!timed && ports_.gpu_lost()) {
    row.status = VersionStatus::CheckError;
    const std::string what = "faulted while timed before its check (ref.py was still loading)";
    row.status_reason = what + ": " + row.profile_reason;
    print_progress(
        fmt::format("[{}] note: it {}; the versions timed before it cannot be checked any more", row.name, what));
    return;
  }
  d.inst = std::move(inst);
  deferred_.push_back(std::move(d));
}

void RunWorkflow::check_deferred() {
  std::vector<bool> dropped(pending_.size(), false);
  for (auto& d : deferred_) {
    VersionRow& row = out_.rows[d.row];
    bool keep = false;
    if (why_stop_.empty()) {
      auto t0 = Clock::now();
      bool correct = false;
      step(row, "check", t0, [&] { correct = check_version(d.spec, *d.inst, row, t0); });
      if (stopped_) return;
      if (correct && d.pending != kNoTiming) {
        PendingProfile& p = pending_[d.pending];
        keep = step(row, "profile", t0, [&] { p.work = ports_.call_work(*d.inst, d.spec, req_.ref, p.out.notes); });
        if (keep) {
          fill_timing_columns(row, p.out.timing);
          row.steps_s["profile"] = d.timing_s;
          say(step_text(row.name, "timing",
                        fmt_duration_ms(row_time_ms(p.out.timing)) + " per call (timed before its check)", d.timing_s));
        }
      }
      note_stop(row.name);
    } else {
      row.status = VersionStatus::NotRun;
      row.status_reason = "timed but not checked: " + why_stop_;
    }
    if (!keep && d.pending != kNoTiming) dropped[d.pending] = true;
    if (keep && rounds_wanted() && row.correct()) {  // timed, checked and correct: into the rounds
      if (d.row == 0) load_aa_instance(d.spec);      // the A/A arm's own instance, as for a version checked first
      keep_for_rounds(d.row, std::move(d.inst));
    }
    d.inst.reset();
  }
  deferred_.clear();
  drop_pending(pending_, pending_rows_, dropped);
}

}  // namespace kprof
