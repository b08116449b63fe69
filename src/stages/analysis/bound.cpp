#include "stages/analysis/bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stages/analysis/format.hpp"
#include "core/text.hpp"
#include "stages/ncu/metrics.hpp"

namespace kprof {

namespace m = metric;

WorkModel work_from_buffers(const std::vector<BufferUse>& buffers) {
  WorkModel w;
  if (buffers.empty()) return w;
  double in = 0, out = 0, largest_out = -1;
  std::vector<std::string> ins, outs, ruled;
  for (const auto& b : buffers) {
    (b.output ? out : in) += b.bytes;
    (b.output ? outs : ins).push_back(fmt::format("{} {}", b.name, format_si(b.bytes, "B")));
    if (b.sized_by_rule) ruled.push_back(b.name);
    if (b.output && b.dtype && b.bytes > largest_out) {
      largest_out = b.bytes;
      w.output_dtype = b.dtype;
    }
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("none") : s;
  };
  w.min_bytes = in + out;
  w.input_bytes = in;
  w.bytes_how = fmt::format("inputs read once ({}) + outputs written once ({}) = {}", join(ins), join(outs),
                            format_si(in + out, "B"));
  if (!ruled.empty()) {
    w.bytes_rest_on_seed_rule = true;
    w.bytes_how += fmt::format(
        "; {} sized by the original kernel-profile scripts' rule, which may be larger than the kernel uses "
        "(pass --size NAME=EXPR for exact sizes)",
        join(ruled));
  }
  return w;
}

double TimeBound::headroom() const {
  if (!bound_s || measured_s <= 0) return 0;
  return std::clamp(1.0 - *bound_s / measured_s, 0.0, 1.0);
}

namespace {

std::string ns(double s) { return format_value(s * 1e9, "ns"); }

/// Appends the term `amount` / `rate` to `b`; returns its time in seconds.
double add_term(TimeBound& b, const char* kind, const char* ceiling, double amount, const Rate& rate, const char* unit,
                const std::string& precision = "") {
  BoundTerm t{kind, ceiling, amount, rate.per_s, amount / rate.per_s, "", precision};
  t.arithmetic = fmt::format("{}{} / {} = {}", precision.empty() ? "" : precision + ": ", format_si(amount, unit),
                             format_si(rate.per_s, std::string(unit) + "/s"), ns(t.time_s));
  b.terms.push_back(t);
  return t.time_s;
}

/// The binding compute term of executed FLOPs: one term per precision at its own peak, the
/// slowest binds. Returns its time and "the FP32 peak 66.9 TFLOP/s"; nullopt when no precision
/// has a peak.
std::optional<std::pair<double, std::string>> executed_compute(TimeBound& b, const ExecutedWork& e, const Ceilings& c) {
  std::optional<std::pair<double, std::string>> worst;
  for (const auto& [label, n] : e.flops) {
    const Rate* peak = nullptr;
    for (const auto& [name, rate] : c.compute)
      if (name == label) peak = &rate;
    if (!peak) {
      b.notes.push_back(
          fmt::format("no {} peak in the report: its {} executed FLOPs are not a term", label, format_si(n, "FLOP")));
      continue;
    }
    double t = add_term(b, "compute", "theoretical", n, *peak, "FLOP", label);
    if (!worst || t > worst->first)
      worst = std::make_pair(t, fmt::format("the {} peak {}", label, format_si(peak->per_s, "FLOP/s")));
  }
  return worst;
}

/// The compute term of an algorithm's FLOPs (declared or counted) at the outputs' precision.
/// `mem_s` is the memory term, for the note on the other peak. Returns the term's time.
std::optional<double> algorithm_compute(TimeBound& b, const WorkModel& w, const Ceilings& c,
                                        std::optional<double> mem_s, std::string& binding) {
  auto cc = output_precision_peak(c, w.output_dtype);
  if (!cc) {
    b.notes.push_back("no peak for " + c.precision + " in the report: the compute term is missing");
    return std::nullopt;
  }
  double t = add_term(b, "compute", "theoretical", *w.flops, cc->rate, "FLOP", cc->precision);
  binding = fmt::format("compute at the {} peak {}", cc->precision, format_si(cc->rate.per_s, "FLOP/s"));
  b.notes.push_back(fmt::format("compute term: {}; held to the {} peak ({})", w.flops_how, cc->precision, cc->why));
  if (cc->other) {
    double other_t = *w.flops / cc->other->second.per_s;
    b.notes.push_back(fmt::format("at the {} peak ({}) the bound would be {} ({})", cc->other->first,
                                  format_si(cc->other->second.per_s, "FLOP/s"),
                                  ns(std::max(other_t, mem_s.value_or(0))), cc->other_why));
  }
  return t;
}

/// The note when `e` moved its DRAM bytes faster than `achievable` (a copy: reads and writes in
/// equal parts), naming its read share; "" otherwise.
std::string read_share_note(const ExecutedWork& e, const Rate& achievable) {
  auto bytes = e.dram_bytes();
  if (!bytes || *bytes <= 0 || !e.gpu_time_s || *e.gpu_time_s <= 0) return "";
  double bw = *bytes / *e.gpu_time_s;
  if (bw <= achievable.per_s) return "";
  return fmt::format(
      "the kernel moved its DRAM bytes at {} ({} {} + {} {} in "
      "{} {}), above the achievable {} of a device-to-device copy, which reads and "
      "writes in equal parts: reads alone can exceed a copy's bandwidth (no turns of the DRAM bus between "
      "reads and writes), and {} of this kernel's DRAM bytes are reads, so the memory term at the "
      "achievable ceiling can be above the least time; the theoretical ceiling still bounds it",
      format_si(bw, "B/s"), m::kDramRead, format_si(*e.dram_read, "B"), m::kDramWrite, format_si(*e.dram_write, "B"),
      m::kDuration, ns(*e.gpu_time_s), format_si(achievable.per_s, "B/s"),
      format_value(100.0 * *e.dram_read / *bytes, "%"));
}

/// Sets the bound from its terms and the measured time: the binding term, % of bound, "at most".
void settle(TimeBound& b, std::optional<double> mem, std::optional<double> mem_theo, std::optional<double> compute,
            const std::string& mem_binding, const std::string& compute_binding,
            const std::optional<LaunchFloor>& floor) {
  if (mem || compute) {
    bool mem_binds = mem && (!compute || *mem >= *compute);
    b.bound_s = mem_binds ? *mem : *compute;
    b.binding = mem_binds ? mem_binding : compute_binding;
  }
  if (mem_theo || compute) b.theoretical_s = std::max(mem_theo.value_or(0), compute.value_or(0));
  // bound = max(floor, work): no kernel completes in less than the launch floor.
  if (floor && floor->seconds > 0 && (b.bound_s || b.theoretical_s)) {
    b.floor_s = floor->seconds;
    b.floor_how = floor->how + (floor->measured_at.empty() ? "" : ", " + floor->measured_at);
    if (b.bound_s && floor->seconds > *b.bound_s) {
      b.notes.push_back(fmt::format("the work alone ({}) takes less than the launch floor: the floor bounds",
                                    b.binding + " " + ns(*b.bound_s)));
      b.bound_s = floor->seconds;
      b.binding = fmt::format("the launch floor ({}the least kernel duration on this GPU)",
                              floor->provisional ? "provisional; " : "");
      b.floor_binds = true;
    }
    if (b.theoretical_s) b.theoretical_s = std::max(*b.theoretical_s, floor->seconds);
  }
  if (b.bound_s && b.measured_s > 0 && *b.bound_s > kImpossibleBoundRatio * b.measured_s) {
    // A bound this far above the measured time comes from a count that cannot be (a damaged or
    // edited report): no clock or ceiling error explains it, so no bound and no percentage is given.
    b.notes.push_back(
        fmt::format("not concluded: the bound {} ({}) is {:.3g}x the measured {}, which no kernel can "
                    "run: a count behind it cannot be; no bound is given",
                    ns(*b.bound_s), b.binding, *b.bound_s / b.measured_s, ns(b.measured_s)));
    b.bound_s.reset();
    b.theoretical_s.reset();
  }
  if (b.bound_s && b.measured_s > 0) {
    b.pct_of_bound = 100.0 * *b.bound_s / b.measured_s;  // above 100%: faster than the ceiling assumed
    b.max_speedup = std::max(1.0, b.measured_s / *b.bound_s);
    if (*b.bound_s > b.measured_s && b.implementation)
      b.notes.push_back(
          fmt::format("measured {} is below the bound {} (over 100% of it): a clock above the one "
                      "ncu's peak assumes",
                      ns(b.measured_s), ns(*b.bound_s)));
    else if (*b.bound_s > b.measured_s)
      b.notes.push_back(
          fmt::format("measured {} is below the bound {} (over 100% of it): the ceiling underestimates "
                      "this GPU (kprof's own copy did not reach the bandwidth this kernel does), timing "
                      "noise, a clock above the one the peak assumes, or buffers larger than the kernel uses",
                      ns(b.measured_s), ns(*b.bound_s)));
  }
  if (b.theoretical_s && b.measured_s > 0) b.pct_of_theoretical = 100.0 * *b.theoretical_s / b.measured_s;
}

}  // namespace

TimeBound compute_bound(const WorkModel& work, const Ceilings& c, double measured_s, std::string measured_how,
                        const ExecutedWork* executed) {
  TimeBound b;
  b.measured_s = measured_s;
  b.measured_how = std::move(measured_how);
  std::optional<double> mem_theo, mem_best, compute;
  if (work.min_bytes && *work.min_bytes > 0) {
    if (c.dram) mem_theo = add_term(b, "memory", "theoretical", *work.min_bytes, *c.dram, "B");
    if (c.dram_achievable) mem_best = add_term(b, "memory", "achievable", *work.min_bytes, *c.dram_achievable, "B");
    if (!c.dram) b.notes.push_back(fmt::format("no DRAM peak ({}, {})", m::kDramPeakPerCycle, m::kDramFreq));
    if (!c.dram_achievable)
      b.notes.push_back("no achievable bandwidth measured: the memory term uses ncu's theoretical peak");
    if (work.bytes_rest_on_seed_rule)
      b.notes.push_back("the byte count rests on the original kernel-profile scripts' sizing rule");
  } else {
    b.notes.push_back("the bytes the call must move are not known");
  }
  std::optional<double> mem = mem_best ? mem_best : mem_theo;
  std::string compute_binding;
  if (work.flops && *work.flops > 0) {
    compute = algorithm_compute(b, work, c, mem, compute_binding);
  } else if (executed && executed->total_flops() > 0) {
    if (auto e = executed_compute(b, *executed, c)) {
      compute = e->first;
      compute_binding = "compute (the kernel's executed FLOPs) at " + e->second;
    }
    b.notes.push_back(
        (work.flops_how.empty() ? std::string() : work.flops_how + "; ") +
        "compute term: the FLOPs executed by the kernel (ncu's instruction counts), not the algorithm's minimum "
        "(declare ref.py flops(**dims) for that)");
  } else {
    b.notes.push_back((work.flops_how.empty() ? std::string() : work.flops_how + "; ") +
                      "FLOPs not declared (ref.py flops(**dims)) nor counted: the bound is the memory term only");
  }
  std::string mem_binding =
      !mem       ? ""
      : mem_best ? fmt::format("memory at the achievable {} ({})", format_si(c.dram_achievable->per_s, "B/s"),
                               c.dram_achievable->how)
                 : fmt::format("memory at the theoretical {} (no achievable bandwidth measured for this GPU)",
                               format_si(c.dram->per_s, "B/s"));
  settle(b, mem, mem_theo, compute, mem_binding, compute_binding, c.floor);
  if (executed && c.dram_achievable)
    if (auto note = read_share_note(*executed, *c.dram_achievable); !note.empty()) b.notes.push_back(note);
  return b;
}

TimeBound implementation_bound(const ExecutedWork& e, const Ceilings& c) {
  TimeBound b;
  b.implementation = true;
  if (!e.gpu_time_s || *e.gpu_time_s <= 0) {
    b.notes.push_back(fmt::format("no {} in the report: no implementation bound", m::kDuration));
    return b;
  }
  b.measured_s = *e.gpu_time_s;
  b.measured_how = e.launches > 1 ? fmt::format("{} of {} launches (ncu)", m::kDuration, e.launches)
                                  : fmt::format("{} (ncu, under the profiler)", m::kDuration);
  std::optional<double> mem_theo, mem_best, compute;
  auto bytes = e.dram_bytes();
  if (bytes && *bytes > 0 && c.dram) {
    mem_theo = add_term(b, "memory", "theoretical", *bytes, *c.dram, "B");
    if (c.dram_achievable) mem_best = add_term(b, "memory", "achievable", *bytes, *c.dram_achievable, "B");
  } else {
    b.notes.push_back(c.dram ? fmt::format("no DRAM bytes in the report ({}, {})", m::kDramRead, m::kDramWrite)
                             : fmt::format("no DRAM peak in the report ({})", m::kDramPeakPerCycle));
  }
  std::string compute_binding;
  if (auto x = executed_compute(b, e, c)) {
    compute = x->first;
    compute_binding = "compute (executed FLOPs) at " + x->second;
  }
  std::string mem_binding;
  if (mem_best)
    mem_binding = fmt::format("memory (its DRAM bytes) at the achievable {} ({})",
                              format_si(c.dram_achievable->per_s, "B/s"), c.dram_achievable->how);
  else if (mem_theo)
    mem_binding = fmt::format(
        "memory (its DRAM bytes) at the theoretical {} (no achievable bandwidth known for this "
        "GPU)",
        format_si(c.dram->per_s, "B/s"));
  settle(b, mem_best ? mem_best : mem_theo, mem_theo, compute, mem_binding, compute_binding, c.floor);
  if (c.dram_achievable)
    if (auto note = read_share_note(e, *c.dram_achievable); !note.empty()) b.notes.push_back(note);
  b.notes.push_back(fmt::format(
      "a bound of the implementation as executed: its own DRAM traffic ({} + {}) and the FLOPs it executed, at "
      "ncu's theoretical peaks; not the algorithm's: a change that removes traffic or work (coalescing, reuse in "
      "shared memory or cache, a better algorithm) can beat it, and L1, L2 and shared-memory traffic are not terms",
      m::kDramRead, m::kDramWrite));
  return b;
}

std::string floor_clause(const TimeBound& b) {
  if (!b.floor_s) return "";
  if (b.floor_binds) return fmt::format("; the floor {} bounds, not the work ({})", ns(*b.floor_s), b.floor_how);
  return fmt::format("; launch floor {}", ns(*b.floor_s));
}

std::string implementation_bound_sentence(const TimeBound& b) {
  if (!b.bound_s || !b.pct_of_bound)
    return "implementation bound: not known (" +
           (b.notes.empty() ? std::string("no DRAM bytes or FLOPs in the report") : b.notes.front()) + ")";
  return fmt::format(
      "implementation bound: at {} of it ({} {}; {} measured by ncu): at most ~{}x faster at this "
      "traffic and work{}",
      format_value(*b.pct_of_bound, "%"), ns(*b.bound_s), b.binding, ns(b.measured_s), fmt_sig(*b.max_speedup, 3),
      floor_clause(b));
}

std::string bound_sentence(const TimeBound& b) {
  if (!b.bound_s || !b.pct_of_bound)
    return "time bound: not known (" + (b.notes.empty() ? std::string("no work model") : b.notes.front()) + ")";
  std::string s =
      fmt::format("at {} of the bound ({} {}; {} measured): at most {}x faster", format_value(*b.pct_of_bound, "%"),
                  ns(*b.bound_s), b.binding, ns(b.measured_s), fmt_sig(*b.max_speedup, 3));
  if (b.pct_of_theoretical && b.theoretical_s && *b.theoretical_s != *b.bound_s)
    s += fmt::format(" ({} of the theoretical bound {})", format_value(*b.pct_of_theoretical, "%"),
                     ns(*b.theoretical_s));
  return s + floor_clause(b);
}

}  // namespace kprof
