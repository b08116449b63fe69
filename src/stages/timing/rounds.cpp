#include "stages/timing/rounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

/// Median of `v` (reordered; not empty).
double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Calls whose time is <= 0 or not a number (no kernel ran, or none was recorded).
size_t count_zero(const std::vector<double>& calls) {
  return static_cast<size_t>(std::count_if(calls.begin(), calls.end(), [](double x) { return !(x > 0); }));
}

/// Seconds of steady_clock.
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// One round: every arm in a fresh order, calls_per_slot calls each; call c of every arm on set
/// (first_set + c) % sets, so no arm calls twice in a row on the same inputs (a memoizing kernel
/// cannot serve its second call from its first) and every arm sees the same sets.
Round one_round(int versions, bool aa, int first_set, int sets, const RoundOptions& o, const RoundHooks& h,
                std::mt19937_64& rng) {
  Round r;
  r.set = first_set;
  const int arms = versions + (aa ? 1 : 0);
  r.order = round_order(arms, rng);
  r.ms.assign(static_cast<size_t>(arms), 0.0);
  if (h.begin_round) h.begin_round();
  std::vector<double> calls;
  for (int arm : r.order) {
    // The A/A arm is the baseline again: its own instance when the hooks have one.
    const int version = arm < versions ? arm : (h.aa_version >= 0 ? h.aa_version : 0);
    calls.clear();
    for (int c = 0; c < o.calls_per_slot; ++c) calls.push_back(h.time_call(version, (first_set + c) % sets));
    r.zero_calls += count_zero(calls);
    r.ms[static_cast<size_t>(arm)] = median_of(calls);
  }
  if (h.end_round) r.cond = h.end_round();
  return r;
}

}  // namespace

void validate(const RoundOptions& o) {
  if (o.rounds < 1) throw usage_error(fmt::format("--rounds {} is below 1", o.rounds), "pass --rounds 10 or more");
  if (!(o.budget_s > 0))
    throw usage_error(fmt::format("--decide-budget {} s is not positive", o.budget_s), "pass a time in seconds > 0");
  if (o.calls_per_slot < 1)
    throw usage_error(fmt::format("--calls-per-round {} is below 1", o.calls_per_slot), "pass 1 or more");
  if (!(o.band_frac > 0 && o.band_frac < 1)) throw usage_error("internal: the round band is not in (0, 1)");
}

std::vector<double> RoundsResult::kept_ms(int arm) const {
  std::vector<double> out;
  for (const auto& r : rounds)
    if (!r.discarded) out.push_back(r.ms.at(static_cast<size_t>(arm)));
  return out;
}

std::vector<double> RoundsResult::all_ms(int arm) const {
  std::vector<double> out;
  for (const auto& r : rounds) out.push_back(r.ms.at(static_cast<size_t>(arm)));
  return out;
}

size_t RoundsResult::kept() const {
  return static_cast<size_t>(std::count_if(rounds.begin(), rounds.end(), [](const Round& r) { return !r.discarded; }));
}

std::vector<int> round_order(int arms, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<size_t>(std::max(arms, 0)));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

RoundsResult run_rounds(int versions, const RoundOptions& o, const RoundHooks& h) {
  validate(o);
  RoundsResult res;
  res.versions = versions;
  res.aa_arm = o.aa_arm && versions >= 1;
  std::function<double()> now = h.now_s ? h.now_s : steady_seconds;
  res.seed = o.seed != 0 ? o.seed : (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  std::mt19937_64 rng(res.seed);
  const int sets = std::max(1, h.sets);
  const double t0 = now();
  for (int r = 0; r < o.rounds; ++r) {
    if (r >= o.min_rounds && now() - t0 >= o.budget_s) {
      res.stopped_by = "time budget";
      break;
    }
    res.rounds.push_back(one_round(versions, res.aa_arm, (r * o.calls_per_slot) % sets, sets, o, h, rng));
  }
  if (res.stopped_by.empty()) res.stopped_by = "rounds";
  res.seconds = now() - t0;
  for (const auto& r : res.rounds) res.zero_calls += r.zero_calls;
  res.band = apply_band(res.rounds, o.band_frac);
  return res;
}

bool refill_round_times(RoundsResult& r, const std::vector<double>& per_call_ms, int calls_per_slot) {
  size_t calls = 0;
  for (const auto& round : r.rounds) calls += round.order.size() * static_cast<size_t>(std::max(calls_per_slot, 0));
  if (calls_per_slot < 1 || calls != per_call_ms.size()) return false;
  auto next = per_call_ms.begin();
  r.zero_calls = 0;
  for (auto& round : r.rounds) {
    round.zero_calls = 0;
    for (int arm : round.order) {
      const std::vector<double> calls(next, next + calls_per_slot);
      round.zero_calls += count_zero(calls);
      round.ms[static_cast<size_t>(arm)] = median_of(calls);
      next += calls_per_slot;
    }
    r.zero_calls += round.zero_calls;
  }
  return true;
}

RoundBand apply_band(std::vector<Round>& rounds, double band_frac) {
  RoundBand b;
  std::vector<double> clocks;
  size_t throttled = 0, counted = 0;
  for (const auto& r : rounds) {
    if (r.zero_calls > 0) continue;
    ++counted;
    if (r.cond.sm_mhz) clocks.push_back(*r.cond.sm_mhz);
    throttled += r.cond.throttled ? 1 : 0;
  }
  b.throttled = 2 * throttled > counted;
  if (!clocks.empty()) {
    // The reference is a clock state: the round clock with the most rounds within the band of it.
    double ref = clocks[0];
    size_t best = 0;
    for (double c : clocks) {
      const size_t in = static_cast<size_t>(std::count_if(clocks.begin(), clocks.end(), [&](double x) {
        return x >= c * (1 - band_frac) && x <= c * (1 + band_frac);
      }));
      if (in > best || (in == best && c > ref)) {
        best = in;
        ref = c;
      }
    }
    b.ref_mhz = static_cast<unsigned>(std::lround(ref));
    b.lo_mhz = static_cast<unsigned>(std::floor(ref * (1 - band_frac)));
    b.hi_mhz = static_cast<unsigned>(std::ceil(ref * (1 + band_frac)));
  } else {
    b.note = "no SM clock readings (NVML): no round discarded by clock";
  }
  for (auto& r : rounds) {
    r.discarded = false;
    r.why.clear();
    if (r.zero_calls > 0) {
      r.discarded = true;
      r.why = fmt::format("{} call{} with zero time (no kernel ran or was recorded)", r.zero_calls,
                          r.zero_calls == 1 ? "" : "s");
      ++b.discarded_zero;
    } else if (b.ref_mhz && r.cond.sm_mhz && (*r.cond.sm_mhz < b.lo_mhz || *r.cond.sm_mhz > b.hi_mhz)) {
      r.discarded = true;
      r.why = fmt::format("SM clock {} MHz outside {}-{} MHz", *r.cond.sm_mhz, b.lo_mhz, b.hi_mhz);
      ++b.discarded_clock;
    } else if (r.cond.throttled != b.throttled) {
      r.discarded = true;
      r.why = r.cond.throttled ? "throttled (power or thermal) in a run mostly not throttled"
                               : "not throttled in a run mostly throttled";
      ++b.discarded_throttle;
    }
  }
  return b;
}

RoundMemory plan_round_memory(const std::vector<size_t>& version_bytes, int sets, size_t flush_bytes,
                              size_t free_bytes) {
  RoundMemory m;
  m.free_bytes = free_bytes;
  const size_t all = std::accumulate(version_bytes.begin(), version_bytes.end(), size_t{0});
  const double budget = kRoundMemoryShare * static_cast<double>(free_bytes);
  auto need = [&](int s) { return all * static_cast<size_t>(std::max(1, s)) + flush_bytes; };
  m.sets = std::max(1, sets);
  m.need_bytes = need(m.sets);
  if (static_cast<double>(m.need_bytes) <= budget) return m;
  const std::string what = fmt::format(
      "the {} versions' buffers ({} each input set) with {} input sets need {} of "
      "device memory together, {} is free",
      version_bytes.size(), fmt_bytes(static_cast<double>(all)), m.sets, fmt_bytes(static_cast<double>(m.need_bytes)),
      fmt_bytes(static_cast<double>(free_bytes)));
  for (int s = m.sets - 1; s >= 1; --s)
    if (static_cast<double>(need(s)) <= budget) {
      m.sets = s;
      m.need_bytes = need(s);
      m.message = what + fmt::format(": the rounds rotate over {} input set{}", s, s == 1 ? "" : "s");
      return m;
    }
  m.fits = false;
  m.sets = 1;
  m.need_bytes = need(1);
  m.message = what + ": they do not fit together even with one input set; decide on fewer versions at a time";
  return m;
}

}  // namespace kprof
