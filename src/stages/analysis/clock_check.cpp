#include "stages/analysis/clock_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/format.hpp"
#include "core/text.hpp"

namespace kprof {

namespace {

std::string ms(double v) { return fmt_duration_ms(v); }

/// What the samples say about the conditions of kprof's timed calls.
std::string samples_text(const ClockSummary& d) {
  if (d.samples == 0) return "NVML was not sampled during the timed calls (" + d.note + ")";
  std::string s = fmt::format("NVML during kprof's timed calls ({} samples): SM clock", d.samples);
  if (d.sm_mhz.n)
    s += fmt::format(" {:.0f}-{:.0f} MHz (mean {:.0f})", *d.sm_mhz.min, *d.sm_mhz.max, *d.sm_mhz.mean);
  else
    s += " not read";
  s += "; " + reason_text(d);
  if (d.power_w.n && d.power_limit_w)
    s += fmt::format("; power {:.0f}-{:.0f} W against a {:.0f} W limit (NVML's power reading lags)", *d.power_w.min,
                     *d.power_w.max, *d.power_limit_w);
  return s;
}

}  // namespace

ClockCheck check_clocks(const ClockCheckInput& in) {
  ClockCheck c;
  if (in.ncu_ms <= 0 || in.kprof_ms <= 0) {
    c.text = "kprof's and ncu's times cannot be compared (one of them is missing)";
    return c;
  }
  c.gap_pct = 100.0 * (in.kprof_ms - in.ncu_ms) / in.ncu_ms;
  c.tolerance_ms = in.kprof_std_ms + kTimeAgreeFraction * in.ncu_ms;
  c.cache_flush_allowed = in.kprof_ms < in.ncu_ms;
  if (c.cache_flush_allowed)
    c.tolerance_ms += kNcuCacheFlushMs * static_cast<double>(std::max<size_t>(1, in.ncu_launches));
  c.beyond_noise = std::fabs(in.kprof_ms - in.ncu_ms) > c.tolerance_ms;
  if (in.during.sm_mhz.mean) c.kprof_cycles = in.kprof_ms * 1e-3 * *in.during.sm_mhz.mean * 1e6;
  if (c.kprof_cycles && in.ncu_cycles && *in.ncu_cycles > 0)
    c.cycle_gap_pct = 100.0 * (*c.kprof_cycles - *in.ncu_cycles) / *in.ncu_cycles;

  std::string head = fmt::format(
      "kprof's kernel time {} ({}, median) against ncu's {} (one call under the "
      "profiler): {:+.1f}%",
      ms(in.kprof_ms), in.kprof_label, ms(in.ncu_ms), c.gap_pct);
  std::string cycles;
  if (c.cycle_gap_pct)
    cycles =
        fmt::format("; in SM cycles {} x {:.0f} MHz = {} against ncu's {}{}: {:+.1f}%", ms(in.kprof_ms),
                    *in.during.sm_mhz.mean, fmt_sig(*c.kprof_cycles, 4), fmt_sig(*in.ncu_cycles, 4),
                    in.ncu_hz ? fmt::format(" at {}", format_si(*in.ncu_hz, "Hz")) : std::string(), *c.cycle_gap_pct);
  const std::string allowed = fmt::format(
      "{}: kprof's std dev + {}% of ncu's time{}", ms(c.tolerance_ms), fmt_sig(100 * kTimeAgreeFraction, 2),
      c.cache_flush_allowed
          ? fmt::format(" + {} per kernel for ncu's flush of all GPU caches before it", ms(kNcuCacheFlushMs))
          : std::string());
  if (!c.beyond_noise) {
    c.text = head + fmt::format(", within noise (allowed {}){}.", allowed, cycles);
    return c;
  }
  c.clocks_explain = c.cycle_gap_pct && std::fabs(*c.cycle_gap_pct) <= 100 * kCyclesAgreeFraction;
  std::string why;
  if (c.clocks_explain)
    why = " The cycle counts agree: the SM clock explains the gap (the two ran at different clocks).";
  else if (c.cycle_gap_pct)
    why = " The cycle counts differ too: the SM clock does not explain the gap.";
  else
    why = " The cycles cannot be compared (no sampled SM clock or no ncu cycle count).";
  c.text = head + fmt::format(", beyond noise (allowed {}){}.{} {}.", allowed, cycles, why, samples_text(in.during));
  if (!c.clocks_explain && in.during.throttled)
    c.text += fmt::format(
        " The GPU throttled during kprof's calls ({} of {} samples): kprof's time includes it, "
        "ncu's single call does not.",
        in.during.throttled, in.during.reason_samples);
  return c;
}

}  // namespace kprof
