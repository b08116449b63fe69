#include "stages/timing/duration_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "stages/timing/call_conditions.hpp"
#include "stages/timing/gpu_duration.hpp"
#include "stages/timing/stats.hpp"

namespace kprof {

GpuDurationResult phase_gpu_duration(Driver& d, int calls, ClockReader& clocks, int gpu,
                                     const DurationPassRules& rules) {
  GpuDurationResult g;
  g.cache_control_asked = rules.reset_l2;
  std::unique_ptr<GpuDurationTimer> timer;
  try {
    timer = std::make_unique<GpuDurationTimer>(gpu, rules.reset_l2);
  } catch (const CuptiRangeError& e) {
    g.note = std::string(e.what()) + (e.hint().empty() ? "" : " (" + e.hint() + ")");
    return g;
  }
  g.cache_control = timer->cache_control();
  g.cupti_version = timer->cupti_version();
  reset_persisting_l2();
  PassConditions pc;
  pc.sampler = clocks.start_sampler();
  std::vector<double> all, kernels;
  for (int i = 0; i < calls; ++i) {
    const std::string what = fmt::format("timed call {} (GPU-duration phase)", i + 1);
    d.between_calls(d.set_ending_on_one(i, calls));
    std::vector<KernelDuration> k;
    SampleWindow sw;
    try {
      timer->begin();
      sw.begin_ms = pc.now();
      d.call(what);
      d.wait(what);
      sw.end_ms = pc.now();
      k = timer->end();
    } catch (const CuptiRangeError& e) {
      g.note = e.what();
      return g;
    }
    ++g.calls;
    pc.windows.push_back(sw);
    pc.after.push_back(clocks.quick());
    double ns = 0;
    for (const auto& x : k) ns += x.ns;
    all.push_back(ns * 1e-6);
    kernels.push_back(static_cast<double>(k.size()));
  }
  g.conditions = pc.finish(nullptr, std::nullopt);
  auto keep = keep_calls(g.conditions, rules.clock_floor_mhz, rules.discard_throttled,
                         std::min(static_cast<size_t>(calls), rules.min_keep), g.discard);
  g.sum_ms = kept_values(all, keep);
  g.sum = summarize(g.sum_ms);
  g.median_kernels = static_cast<size_t>(summarize(kernels).median);
  g.available = g.sum.n > 0 && g.median_kernels > 0;
  if (!g.available) g.note = "the range profiler saw no kernel in the calls";
  return g;
}

}  // namespace kprof
