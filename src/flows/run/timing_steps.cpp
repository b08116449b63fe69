// The timing steps the flow owns: the last timed call against the check's reference, the note on ncu's cache
// flushes for multi-kernel calls, and the console line after timing.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "flows/profile.hpp"

namespace kprof {

void check_last_outputs(TimingResult& t, const std::vector<ExpectedOutputs>& expected) {
  IntegrityCheck c{"last timed outputs", IntegrityStatus::NotRun, ""};
  if (!t.last_outputs) {
    c.detail = "the last timed call's outputs were not kept";
  } else {
    const LastOutputs& last = *t.last_outputs;
    auto exp =
        std::find_if(expected.begin(), expected.end(), [&](const ExpectedOutputs& e) { return e.seed == last.seed; });
    if (exp == expected.end()) {
      c.detail = fmt::format("no reference answer for input set {} (seed {}): pass --trials {} or more", last.set,
                             last.seed, last.set + 1);
    } else {
      auto cmps = compare_with_expected(*exp, last.names, last.outputs);
      std::vector<std::string> bad;
      for (const auto& cmp : cmps)
        if (!cmp.pass) bad.push_back(fmt::format("'{}' {} of {} elements off", cmp.name, cmp.mismatches, cmp.count));
      c.status = cmps.empty() ? IntegrityStatus::NotRun : bad.empty() ? IntegrityStatus::Pass : IntegrityStatus::Fail;
      c.detail =
          cmps.empty() ? "no output to compare"
          : bad.empty()
              ? fmt::format("the last timed call (input set {}, seed {}) matches the reference", last.set, last.seed)
              : fmt::format("the last timed call (input set {}, seed {}) differs from the reference: {}", last.set,
                            last.seed, fmt::join(bad, "; "));
    }
  }
  t.integrity.checks.push_back(c);
  t.integrity.settle();
  t.last_outputs.reset();  // host copies no longer needed
}

void note_cache_control(TimingResult& t) {
  if (!t.kernel.available) return;
  double launches = 0;
  for (const auto& k : t.kernel.summary.kernels) launches += k.launches_per_call;
  if (launches < 1.5) return;
  t.notes.push_back(fmt::format(
      "each call launches {:.3g} kernels: the timing flushes L2 once per call, while ncu (--cache-control all, which "
      "every replay pass needs to start alike) flushes before each kernel, so a kernel that reads what the one "
      "before it wrote finds it in L2 when timed but in DRAM when profiled: its ncu DRAM bytes and duration can "
      "exceed its share of the timed call",
      launches));
}

namespace {

/// The console's word on discarded calls: how many, or that all would have been and were kept.
std::string discard_note(const DiscardSummary& d) {
  if (!d.total) return "";
  if (d.kept_all)
    return fmt::format("; {} calls would be discarded, which leaves too few: all kept (timing.md)", d.total);
  return fmt::format("; {} calls discarded", d.total);
}

}  // namespace

std::string timing_progress_line(const TimingResult& t) {
  const auto k = reported_kernel_time(t);
  return fmt::format(
      "timing: {} per call (median of {} kept of {} calls, stopped by the {}; relative standard error "
      "{:.2f}%), kernel time {}{}",
      fmt_duration_ms(t.call.median), t.call.n, t.iters, t.stopped_by, 100 * t.call_rel_stderr,
      k ? fmt::format("{} ({})", fmt_duration_ms(k->stats->median), k->label) : std::string("not measured"),
      (t.call_discard.throttled_seen
           ? fmt::format("; power or thermal throttle in {} calls", t.call_discard.throttled_seen)
           : std::string()) +
          discard_note(t.call_discard));
}

}  // namespace kprof
