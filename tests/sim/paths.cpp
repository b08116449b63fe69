#include "sim/paths.hpp"

#include <algorithm>
#include <optional>

#include "stages/results/compare.hpp"
#include "stages/results/decision.hpp"
#include "stages/results/versions.hpp"
#include "stages/timing/decision.hpp"
#include "stages/timing/rounds.hpp"
#include "stages/timing/stats.hpp"
#include "stages/timing/timing.hpp"

namespace kprof::sim {
namespace {

constexpr double kBaseMs = 1.0;  ///< the baseline kernel's time, ms

/// The kernel times of a baseline and k candidates `effect` faster.
std::vector<double> kernel_ms(int k, double effect) {
  std::vector<double> v(static_cast<size_t>(k) + 1, kBaseMs / (1 + effect));
  v[0] = kBaseMs;
  return v;
}

/// A correct version's row with the samples its timing compares (the GPU-duration pass's).
VersionRow row_of(const std::string& name, const std::vector<double>& samples) {
  VersionRow r;
  r.name = name;
  r.kernel = name + ".cu";
  r.status = VersionStatus::Pass;
  r.profiled = true;
  const SampleStats s = summarize(samples);
  r.time_ms = r.kernel_ms = s.median;
  r.spread_ms = r.kernel_std_ms = s.stddev;
  r.time_samples_ms = r.kernel_samples_ms = samples;
  r.kernel_source = "gpu__time_duration";
  return r;
}

/// One version's timing as the timing stage makes it, in time order on the fake GPU: warm-up
/// (100 ms, at least 3 calls), phase 1 until the stage's own stop (phase1_stop, default options:
/// 0.5% noise target, 20 calls at least, 1.5 s), the memoization check, phase 2 (as many calls),
/// phase 3 (GPU duration, at most 100 calls: the samples `kprof run` compares).
std::vector<double> time_version(FakeGpu& g, double ms) {
  const TimingOptions o;
  const double w0 = g.now_s();
  for (int i = 0; i < o.min_warmup_calls || (g.now_s() - w0) * 1e3 < o.warmup_ms; ++i) g.call(ms);
  std::vector<double> kept;
  std::string stopped_by;
  bool budget_hit = false;
  const double t0 = g.now_s();
  for (int n = 1;; ++n) {
    kept.push_back(g.call(ms));
    if (phase1_stop(o, n, kept, (g.now_s() - t0) * 1e3, stopped_by, budget_hit)) break;
  }
  const int n = static_cast<int>(kept.size());
  for (int i = 0; i < std::clamp(n / 4, 10, 50); ++i) g.call(ms);  // memoization check
  for (int i = 0; i < n; ++i) g.call(ms);                          // phase 2 (kernel records)
  std::vector<double> dur;
  for (int i = 0; i < std::min(n, kMaxGpuDurationCalls); ++i) dur.push_back(g.call(ms));
  return dur;
}

/// `kprof run` without --decide: every version timed in its own block, then compare_versions.
std::vector<VersionRow> run_blocks(FakeGpu& g, const std::vector<double>& ms) {
  std::vector<VersionRow> rows;
  for (size_t v = 0; v < ms.size(); ++v) rows.push_back(row_of("v" + std::to_string(v), time_version(g, ms[v])));
  return rows;
}

Call of_change(Change c) { return c == Change::Faster ? Call::Up : c == Change::Slower ? Call::Down : Call::None; }

Call of_decision(Decision d) {
  return d == Decision::Keep ? Call::Up : d == Decision::Revert ? Call::Down : Call::None;
}

std::vector<Call> run_default(FakeGpu& g, const std::vector<double>& ms) {
  const auto rows = run_blocks(g, ms);
  const auto cmp = compare_versions(rows);
  std::vector<Call> out;
  for (size_t i = 1; i < cmp.size(); ++i) out.push_back(of_change(cmp[i].change));
  return out;
}

/// `kprof run --decide`: the rounds on the fake GPU (its clock read after each round), the decision
/// per candidate as the run flow makes it (flows/run/run_decide.cpp).
std::vector<Call> decide(FakeGpu& g, const std::vector<double>& ms, bool confirm, int rounds, uint64_t seed,
                         double min_gain = kDefaultMinGain) {
  RoundOptions o;
  o.rounds = rounds;
  if (o.seed == 0) o.seed = seed | 1;  // the rule draws a seed per run: the suite draws it from the run's seed
  RoundHooks h;
  h.time_call = [&](int v, int) { return g.call(ms[static_cast<size_t>(v)]); };
  h.end_round = [&] { return RoundConditions{g.take_min_mhz(), g.throttled()}; };
  h.now_s = [&] { return g.now_s(); };
  h.sets = 3;
  const int versions = static_cast<int>(ms.size());
  RoundsResult first = run_rounds(versions, o, h);
  std::optional<RoundsResult> second;
  if (confirm) {
    RoundOptions again = o;
    again.seed = o.seed + 1;
    second = run_rounds(versions, again, h);
  }
  std::vector<VersionRow> rows;
  std::vector<int> arms;
  for (int v = 0; v < versions; ++v) {
    VersionRow r;
    r.name = "v" + std::to_string(v);
    r.status = VersionStatus::Pass;
    rows.push_back(r);
    arms.push_back(v);
  }
  DecisionRule rule;
  rule.min_gain = min_gain;
  const DecisionReport d = decide_versions(rows, arms, first, second ? &*second : nullptr, rule);
  std::vector<Call> out;
  for (const auto& v : d.versions) out.push_back(of_decision(v.decision.decision));
  out.resize(ms.size() - 1, Call::None);  // no decision at all (not_run): none
  return out;
}

/// A saved `kprof run` of the versions `ms` (one comparison.json), on its own fake GPU.
CompareInput saved_run(const Model& m, double horizon_s, uint64_t seed, const std::vector<double>& ms,
                       const std::string& label) {
  FakeGpu g(m, horizon_s, seed);
  CompareInput in;
  in.path = label + "/comparison.json";
  in.label = label;
  in.schema_version = 2;
  in.header = {{"GPU", "NVIDIA H200"}, {"Dimensions", "N=1048576"}, {"Seed", "42"}};
  in.rows = run_blocks(g, ms);
  return in;
}

/// `kprof compare A B` of two saved runs of the same versions, B's versions `effect` faster: the
/// decision column, or the vs-first column (`vs_first`), or the gate's failures (`gate_pct`); with
/// `both` set, the vs-first column there too (the same runs read twice).
std::vector<Call> compare(const Model& m, int k, double effect, double horizon_s, uint64_t seed, bool vs_first,
                          std::optional<double> gate_pct, std::vector<Call>* both = nullptr) {
  std::vector<double> a(static_cast<size_t>(k), kBaseMs), b(static_cast<size_t>(k), kBaseMs / (1 + effect));
  std::vector<CompareInput> in;
  in.push_back(saved_run(m, horizon_s, seed, a, "A"));
  in.push_back(saved_run(m, horizon_s, seed ^ 0x5bd1e995ULL, b, "B"));
  const CompareResult r = compare_inputs(std::move(in), gate_pct);
  std::vector<Call> out;
  for (const auto& v : r.versions) {
    if (gate_pct) {
      const bool failed =
          std::any_of(r.failures.begin(), r.failures.end(), [&](const GateFailure& f) { return f.version == v.name; });
      out.push_back(failed ? Call::Down : Call::None);
    } else if (vs_first) {
      out.push_back(of_change(v.cmp[1].change));
    } else {
      out.push_back(v.decision[1] ? of_decision(v.decision[1]->decision) : Call::None);
    }
    if (both) both->push_back(of_change(v.cmp[1].change));
  }
  return out;
}

}  // namespace

std::vector<Path> all_paths() {
  return {Path::Run,     Path::Decide,         Path::DecideConfirm, Path::Decide10,
          Path::Compare, Path::CompareVsFirst, Path::Gate,          Path::GateRetimed};
}

std::string path_name(Path p) {
  switch (p) {
    case Path::Run:
      return "run";
    case Path::Decide:
      return "decide";
    case Path::DecideConfirm:
      return "decide --confirm";
    case Path::Decide10:
      return "decide 10 rounds";
    case Path::Compare:
      return "compare";
    case Path::CompareVsFirst:
      return "compare vs-first";
    case Path::Gate:
      return "compare --fail-if-slower 5";
    case Path::GateRetimed:
      return "gate (re-timed)";
  }
  return "?";
}

std::vector<Call> simulate_compare(const Model& m, int k, double effect, double horizon_s, uint64_t seed,
                                   std::vector<Call>& vs_first) {
  return compare(m, k, effect, horizon_s, seed, false, std::nullopt, &vs_first);
}

std::vector<Call> simulate(Path p, const Model& m, int k, double effect, double horizon_s, uint64_t seed,
                           double* elapsed_s) {
  std::vector<Call> out;
  if (p == Path::Compare || p == Path::CompareVsFirst || p == Path::Gate) {
    if (p == Path::Gate) {  // one gate test per candidate, each its own baseline and current run
      for (int i = 0; i < k; ++i) {
        const auto one =
            compare(m, 1, effect, horizon_s, cell_seed(seed, 7, 0, 0, static_cast<uint64_t>(i)), false, 5.0);
        out.push_back(one[0]);
      }
    } else {
      out = compare(m, k, effect, horizon_s, seed, p == Path::CompareVsFirst, std::nullopt);
    }
    if (elapsed_s) {  // one run's length, for the horizon
      FakeGpu g(m, horizon_s, seed);
      run_blocks(g, std::vector<double>(static_cast<size_t>(p == Path::Gate ? 1 : k), kBaseMs));
      *elapsed_s = g.now_s();
    }
    return out;
  }
  FakeGpu g(m, horizon_s, seed);
  const auto ms = kernel_ms(k, effect);
  switch (p) {
    case Path::Run:
      out = run_default(g, ms);
      break;
    case Path::Decide:
      out = decide(g, ms, false, kDefaultRounds, seed);
      break;
    case Path::DecideConfirm:
      out = decide(g, ms, true, kDefaultRounds, seed);
      break;
    case Path::Decide10:
      out = decide(g, ms, false, 10, seed);
      break;
    case Path::GateRetimed:  // one gate test per candidate: the baseline and it, re-timed in one run
      for (int i = 0; i < k; ++i) {
        FakeGpu gi(m, horizon_s, cell_seed(seed, 8, 0, 0, static_cast<uint64_t>(i)));
        const Call c = decide(gi, kernel_ms(1, effect), false, kDefaultRounds,
                              cell_seed(seed, 9, 0, 0, static_cast<uint64_t>(i)), 0.05)[0];
        out.push_back(c == Call::Down ? Call::Down : Call::None);  // the gate fails on a revert only
        if (elapsed_s) *elapsed_s = gi.now_s();
      }
      return out;
    default:
      break;
  }
  if (elapsed_s) *elapsed_s = g.now_s();
  return out;
}

}  // namespace kprof::sim
