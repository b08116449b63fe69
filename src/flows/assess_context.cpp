#include "flows/assess_context.hpp"

#include <fmt/format.h>

#include <chrono>
#include <future>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "stages/verify/flop_count.hpp"
#include "stages/verify/work_model.hpp"
#include "flows/ceiling_cache.hpp"
#include "python/interpreter.hpp"

namespace kprof {

namespace {

/// The FLOPs FlopCounterMode counted while ref.py's reference ran for this call, when it did.
void add_counted_flops(WorkModel& w, const KernelInstance& inst, const std::string& ref) {
  auto counted = counted_flops(ref, reference_call_key(inst.buffers(), inst.scalars()));
  if (!counted) return;
  w.flops_how = counted_flops_how(*counted);
  if (counted->total && *counted->total > 0) {
    w.flops = counted->total;
    w.flops_source = FlopSource::Counted;
  }
}

}  // namespace

WorkModel call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                    std::vector<std::string>& notes) {
  std::vector<BufferUse> uses;
  for (const auto& b : inst.buffers())
    uses.push_back({b.name, static_cast<double>(b.count * dtype_size(b.dtype)), b.is_output, b.sized_by_rule, b.dtype});
  WorkModel w = work_from_buffers(uses);
  if (ref.empty()) return w;
  DeclaredWork dw;
  if (declares_work(ref)) {
    std::map<std::string, double> ints, floats;
    for (const auto& d : spec.dims.all()) (d.is_int ? ints : floats)[d.name] = d.value;
    try {
      dw = declared_work(ref, ints, floats);
    } catch (const Error& e) {
      notes.push_back(std::string("ref.py's declared work is ignored: ") + e.what());
    }
  }
  if (dw.bytes) {
    w.bytes_how = fmt::format("{} (the buffers alone would give {})", dw.bytes_how, w.bytes_how);
    w.min_bytes = dw.bytes;
    w.bytes_rest_on_seed_rule = false;
  }
  if (dw.flops) {
    w.flops = dw.flops;
    w.flops_how = dw.flops_how;
    w.flops_source = FlopSource::Declared;
  } else {
    add_counted_flops(w, inst, ref);
  }
  return w;
}

ProfileReportRead read_profile_report(const std::string& report, bool source, bool rules) {
  ProfileReportRead r;
  r.path = report;
  r.source = source;
  r.rules = rules;
  auto start = std::chrono::steady_clock::now();
  NcuRepReadOptions ro;
  ro.metrics = true;
  ro.source = source;
  ro.sass = false;  // read for the instructions the reports show (hot_lines_of_report)
  ro.rules = rules;
  try {
    std::string why_not;
    r.rep = try_read_ncu_rep(report, ro, &why_not);
    if (!r.rep) r.unavailable = why_not.empty() ? std::string("no module found") : why_not;
  } catch (const Error& e) {
    r.error = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

NcuReportPrewarm::NcuReportPrewarm(bool disassembler) {
  try {
    ensure_python();  // on this thread: Python's main thread is the one that starts it
  } catch (const Error&) {
    return;  // the read says why
  }
  done_ = std::async(std::launch::async, [disassembler] {
            adopt_python_thread();
            // imports the module (cached for the read)
            if (ncu_report_unavailable_reason().empty() && disassembler) warm_disassembler_early();
          }).share();
}

AnalysisContext measured_context(const WorkModel& work, const KernelSpec& spec, const TimingResult& timing,
                                 std::vector<std::string>& notes) {
  AnalysisContext ctx;
  ctx.work = work;
  if (auto k = reported_kernel_time(timing)) {
    ctx.measured_ms = k->stats->median;
    ctx.measured_std_ms = k->stats->stddev;
    ctx.measured_how = fmt::format("kernel time per call: {}, median of {}", k->label, k->stats->n);
    ctx.measured_label = k->label;
  } else if (timing.call.n > 0) {
    ctx.measured_ms = timing.call.median;
    ctx.measured_std_ms = timing.call.stddev;
    ctx.measured_how =
        fmt::format("call time: CUDA events, median of {} (CUPTI kernel time not available)", timing.call.n);
    ctx.measured_label = "CUDA events";
  }
  if (timing.during.sm_mhz.mean) ctx.sm_hz = *timing.during.sm_mhz.mean * 1e6;
  ctx.during = timing.during;
  std::string why;
  if (auto bw = achievable_dram_bandwidth(spec.gpu, &why)) {
    ctx.dram_achievable = Rate{
        bw->bytes_per_s, bw->how + (bw->cached ? ", cached from " + bw->measured_at : ", measured " + bw->measured_at)};
  }
  if (!why.empty()) notes.push_back(why);
  std::string floor_why;
  ctx.launch_floor = launch_floor(spec.gpu, &floor_why);
  if (!floor_why.empty()) notes.push_back(floor_why);
  ctx.known_gpus = known_gpu_ceilings();  // the committed floor when this GPU's cannot be measured
  return ctx;
}

std::string no_rules_note(const std::string& metric_set) {
  if (metric_set != "kprof") return "";
  return "ncu applied no rules: kprof's default metric list collects no ncu section (profile with "
         "--metrics sections or full for ncu's own estimates)";
}

void attach_rules(AnalysisContext& ctx, const std::string& metric_set, const NcuRep* rep, const std::set<int>* ids,
                  const std::string& why_not) {
  ctx.rules_note = no_rules_note(metric_set);
  if (!ctx.rules_note.empty()) return;
  if (!rep) {
    ctx.rules_note = why_not;
    return;
  }
  std::vector<KernelRuleResults> mine;
  for (auto& r : rule_results_from_rep(*rep))
    if (!ids || ids->count(r.index)) mine.push_back(std::move(r));
  ctx.rules = std::move(mine);
}

AnalysisContext profile_context(const WorkModel& work, const KernelSpec& spec, const TimingResult& timing,
                                const ProfileReportRead& read, const std::string& metric_set,
                                std::vector<std::string>& notes) {
  AnalysisContext ctx = measured_context(work, spec, timing, notes);
  std::string why_not = !read.unavailable.empty() ? "no ncu_report module could be imported (" + read.unavailable + ")"
                                                  : "the rule results of " + read.path + " could not be read" +
                                                        (read.error.empty() ? std::string() : ": " + read.error);
  attach_rules(ctx, metric_set, read.rep ? &*read.rep : nullptr, nullptr, why_not);
  return ctx;
}

}  // namespace kprof
