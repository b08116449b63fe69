#include "cli/profile_settings.hpp"

namespace kprof {

ProfileSettings make_profile_settings(const KernelCliOptions& k, const ProfileCliOptions& p) {
  ProfileSettings s;
  if (p.warmup_calls >= 0) s.timing.warmup_calls = p.warmup_calls;
  s.timing.warmup_ms = p.warmup_ms;
  s.timing.iters = p.iters;
  s.timing.budget_ms = p.time_budget_ms > 0 ? p.time_budget_ms
                       : p.iters_given      ? kExplicitItersBudgetMs
                                            : kDefaultBudgetMs;
  s.timing.noise_target = p.noise_target_pct / 100.0;
  s.timing.clock_floor_frac = p.throttle_threshold_pct / 100.0;
  s.timing.discard_throttled = p.discard_throttled;
  s.timing.input_sets = p.input_sets;
  s.timing.l2_flush = !p.no_l2_flush;
  s.timing.call_timeout_ms = k.spec.timeout_s * 1000.0;
  validate(s.timing);
  s.run_ncu = !p.no_ncu;
  s.roofline = !p.no_roofline;
  s.html = !k.no_html;
  s.html_source = !p.html_no_source;
  s.metric_set = p.metric_set;
  s.ncu_timeout_s = p.ncu_timeout_s;
  s.source = p.source;
  s.sass = p.sass;
  s.stock_source_section = p.stock_source_section;
  s.hot_lines_top = p.top;
  return s;
}

}  // namespace kprof
