// RunWorkflow's --decide step (flows/run/run_workflow.hpp): the correct versions, kept loaded since
// their checks, timed in interleaved rounds, the decision per candidate against the first version.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include <cuda_runtime_api.h>

#include "core/error.hpp"
#include "core/term.hpp"
#include "core/text.hpp"
#include "device/cuda.hpp"
#include "flows/run/run_workflow.hpp"
#include "kernel/load.hpp"
#include "report/decision_report.hpp"
#include "stages/results/decision.hpp"
#include "stages/timing/rounds_gpu.hpp"
#include "flows/run/run_steps.hpp"
#include "stages/timing/stats.hpp"

namespace kprof {

void RunWorkflow::load_aa_instance(const KernelSpec& spec) {
  try {
    decide_aa_ = ports_.load(spec);
  } catch (const Error& e) {
    decide_aa_.reset();
    decide_aa_note_ = std::string("the A/A arm reuses the baseline's instance (a second one did not load: ") +
                      one_line_summary(e.what()) + ")";
  }
}

void RunWorkflow::keep_for_rounds(size_t row, std::unique_ptr<KernelInstance> inst) {
  if (!req_.decide.enabled) {  // the default run: only while the kept versions leave room for the next ones
    const int sets = std::max(1, req_.profile.timing.input_sets);
    size_t held = buffer_bytes(*inst);
    for (const auto& a : decide_arms_) held += buffer_bytes(*a.inst);
    size_t free = 0, total = 0;
    const bool known = cudaMemGetInfo(&free, &total) == cudaSuccess;
    if (!known || 2 * held * static_cast<size_t>(sets) > free) {
      const std::string name = row < out_.rows.size() ? out_.rows[row].name : names_[row];
      rounds_notes_.push_back(fmt::format(
          "{} was not kept for the rounds: the versions' buffers ({} MiB with {} input sets) do not fit in half of "
          "the free device memory ({} MiB) together; its vs-first verdict is inconclusive (time it beside the "
          "baseline alone: kprof run BASELINE {})",
          name, (held * static_cast<size_t>(sets)) >> 20, sets, free >> 20, name));
      return;  // `inst` is released here
    }
  }
  decide_arms_.push_back({row, std::move(inst)});
}

void RunWorkflow::fill_round_times(VersionRow& row, const std::vector<double>& kept_ms, bool kernel) {
  if (kept_ms.empty()) return;
  const SampleStats s = summarize(kept_ms);
  row.profiled = true;
  (kernel ? row.kernel_ms : row.call_ms) = s.median;
  (kernel ? row.kernel_std_ms : row.call_std_ms) = s.stddev;
  (kernel ? row.kernel_samples_ms : row.call_samples_ms) = kept_ms;
  if (kernel) row.kernel_source = "CUPTI";
  row.rel_stderr = median_rel_stderr(kept_ms);
  row.profile = ProfileStatus::NotClassified;
  row.profile_reason = "--decide: timing only (add --decide-ncu for ncu's profile)";
}

DecisionReport RunWorkflow::time_rounds(const std::vector<KernelInstance*>& versions,
                                        const std::vector<int>& arm_of_row) {
  const DecideRequest& dr = req_.decide;
  const bool decide = dr.enabled;
  ports_.wait_gpu_probes();  // no probe of the environment beside the timed rounds
  const int gpu = req_.versions.front().gpu;
  RoundOptions opts = dr.rounds;
  if (!decide) opts.budget_s = std::min(opts.budget_s, kRunRoundsBudgetS);  // the run's time stays close
  print_progress(fmt::format(
      "{}: {} versions and the baseline's A/A arm in up to {} interleaved rounds ({} calls each per round, {:.0f} "
      "s budget){}",
      decide ? "decide" : "rounds", versions.size(), opts.rounds, opts.calls_per_slot, opts.budget_s,
      decide ? "" : ": the verdicts between versions"));
  // Without --decide the rounds time what the table compares: kernel time (CUPTI) where it can.
  RoundTiming first =
      ports_.measure_rounds(versions, req_.profile.timing, opts, gpu, dr.kernel_time || !decide, decide_aa_.get());
  rounds_ = first.rounds;
  std::optional<RoundTiming> second;
  if (decide && dr.confirm) {
    RoundOptions again = dr.rounds;
    again.seed = first.rounds.seed + 1;  // new orders; fresh input sets and warm-up in measure_rounds
    second = ports_.measure_rounds(versions, req_.profile.timing, again, gpu, first.kernel_time, decide_aa_.get());
  }
  DecisionReport report =
      decide_versions(out_.rows, arm_of_row, first.rounds, second ? &second->rounds : nullptr, dr.rule);
  trace_rounds_ = first.rounds;  // trace.json draws the first set
  trace_arms_.assign(static_cast<size_t>(first.rounds.arms()), "");
  for (size_t i = 0; i < arm_of_row.size(); ++i)
    if (arm_of_row[i] >= 0 && static_cast<size_t>(arm_of_row[i]) < trace_arms_.size())
      trace_arms_[static_cast<size_t>(arm_of_row[i])] = out_.rows[i].name;
  if (first.rounds.aa_arm && !trace_arms_.empty()) trace_arms_.back() = out_.rows.front().name + " (A/A)";
  report.notes.insert(report.notes.end(), first.notes.begin(), first.notes.end());
  if (!decide_aa_note_.empty()) report.notes.push_back(decide_aa_note_);
  report.notes.insert(report.notes.end(), rounds_notes_.begin(), rounds_notes_.end());
  report.basis = first.kernel_time ? "kernel time (CUPTI kernel records summed per call)"
                                   : "call time (CUDA events on the legacy default stream)";
  if (decide && !dr.ncu)
    for (size_t i = 0; i < out_.rows.size(); ++i)
      if (arm_of_row[i] >= 0) fill_round_times(out_.rows[i], first.rounds.kept_ms(arm_of_row[i]), first.kernel_time);
  return report;
}

void RunWorkflow::decide_rounds() {
  if (!rounds_wanted() || stopped_) return;
  const DecideRequest& dr = req_.decide;
  const bool decide = dr.enabled;
  std::stable_sort(decide_arms_.begin(), decide_arms_.end(),  // arm 0 the baseline (a version checked late: later)
                   [](const DecideArm& a, const DecideArm& b) { return a.row < b.row; });
  std::vector<int> arm_of_row(out_.rows.size(), -1);
  std::vector<KernelInstance*> versions;
  for (auto& a : decide_arms_) {
    if (a.row >= out_.rows.size() || !out_.rows[a.row].correct()) continue;
    arm_of_row[a.row] = static_cast<int>(versions.size());
    versions.push_back(a.inst.get());
  }
  DecisionReport report;
  const bool baseline_timed = !arm_of_row.empty() && arm_of_row[0] == 0;
  if (!baseline_timed || versions.size() < 2 || ports_.gpu_lost()) {
    report = decide_versions(out_.rows, arm_of_row, RoundsResult{}, nullptr, dr.rule);
    if (ports_.gpu_lost())
      report.not_run = "a kernel hung the GPU: no rounds can run";
    else if (report.not_run.empty())
      report.not_run = "fewer than two correct versions kept for the rounds: nothing to interleave";
    report.notes.insert(report.notes.end(), rounds_notes_.begin(), rounds_notes_.end());
  } else {
    try {
      report = time_rounds(versions, arm_of_row);
    } catch (const Error& e) {
      rounds_.reset();
      report = decide_versions(out_.rows, arm_of_row, RoundsResult{}, nullptr, dr.rule);
      report.not_run = one_line_summary(e.what());
      report.notes.insert(report.notes.end(), rounds_notes_.begin(), rounds_notes_.end());
      if (decide || hard_exit_requested()) {
        print_error(std::string("decide: ") + e.what(), e.hint());
        out_.exit_code = std::max(out_.exit_code, static_cast<int>(e.code()));
      } else {  // the versions' own results stand; only their ranking is not measured
        print_warning("rounds: " + one_line_summary(e.what()) +
                      ": no interleaved rounds, so every vs-first verdict is inconclusive" +
                      (e.hint().empty() ? std::string() : " (" + e.hint() + ")"));
      }
    }
  }
  rounds_arm_of_row_ = arm_of_row;
  report.calls_per_round = dr.rounds.calls_per_slot;
  if (report.basis.empty()) report.basis = "no rounds";
  report.basis +=
      fmt::format(", the median of {} calls per arm per round, kprof's restore and L2 flush before each call",
                  dr.rounds.calls_per_slot);
  std::istringstream lines(decision_text_lines(report));
  for (std::string line; std::getline(lines, line);) say(line);  // after the environment passed, like every result
  out_.decision = std::move(report);
  decide_arms_.clear();  // the instances' device memory goes before ncu's session
  decide_aa_.reset();
}

}  // namespace kprof
