#include "flows/assess_context.hpp"

#include <fmt/format.h>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "stages/verify/work_model.hpp"
#include "stages/timing/achievable.hpp"

namespace kprof {

WorkModel call_work(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                    std::vector<std::string>& notes) {
  std::vector<BufferUse> uses;
  for (const auto& b : inst.buffers())
    uses.push_back({b.name, static_cast<double>(b.count * dtype_size(b.dtype)), b.is_output, b.sized_by_rule});
  WorkModel w = work_from_buffers(uses);
  if (ref.empty() || !declares_work(ref)) return w;
  std::map<std::string, double> ints, floats;
  for (const auto& d : spec.dims.all()) (d.is_int ? ints : floats)[d.name] = d.value;
  DeclaredWork dw;
  try {
    dw = declared_work(ref, ints, floats);
  } catch (const Error& e) {
    notes.push_back(std::string("ref.py's declared work is ignored: ") + e.what());
    return w;
  }
  if (dw.bytes) {
    w.bytes_how = fmt::format("{} (the buffers alone would give {})", dw.bytes_how, w.bytes_how);
    w.min_bytes = dw.bytes;
    w.bytes_rest_on_seed_rule = false;
  }
  if (dw.flops) {
    w.flops = dw.flops;
    w.flops_how = dw.flops_how;
  }
  return w;
}

AnalysisContext profile_context(const KernelInstance& inst, const KernelSpec& spec, const std::string& ref,
                                const TimingResult& timing, const std::string& report, const std::string& metric_set,
                                std::vector<std::string>& notes) {
  AnalysisContext ctx;
  ctx.work = call_work(inst, spec, ref, notes);
  if (timing.kernel.available && timing.kernel.summary.sum.n > 0) {
    ctx.measured_ms = timing.kernel.summary.sum.median;
    ctx.measured_std_ms = timing.kernel.summary.sum.stddev;
    ctx.measured_how = fmt::format("kernel time per call: CUPTI, median of {}", timing.kernel.summary.sum.n);
  } else if (timing.call.n > 0) {
    ctx.measured_ms = timing.call.median;
    ctx.measured_std_ms = timing.call.stddev;
    ctx.measured_how =
        fmt::format("call time: CUDA events, median of {} (CUPTI kernel time not available)", timing.call.n);
  }
  if (timing.during.sm_mhz.mean) ctx.sm_hz = *timing.during.sm_mhz.mean * 1e6;
  ctx.during = timing.during;
  std::string why;
  if (auto bw = achievable_dram_bandwidth(spec.gpu, &why)) {
    ctx.dram_achievable = Rate{
        bw->bytes_per_s, bw->how + (bw->cached ? ", cached from " + bw->measured_at : ", measured " + bw->measured_at)};
  }
  if (!why.empty()) notes.push_back(why);
  if (metric_set == "kprof") {
    ctx.rules_note =
        "ncu applied no rules: kprof's default metric list collects no ncu section (profile with "
        "--metrics sections or full for ncu's own estimates)";
  } else {
    ctx.rules = read_rule_results(report, &ctx.rules_note);
  }
  return ctx;
}

}  // namespace kprof
