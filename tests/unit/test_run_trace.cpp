// trace.json of `kprof run` (report/run_trace.hpp) against the Chrome trace event format: phases,
// microsecond timestamps, complete events per timed call (discarded ones marked in place), counter
// tracks (SM clock, throttle, temperature), the interleaved rounds with a discarded round, and the
// KPROF_TRACE lines merged in. Fed by fakes standing where the GPU would be: a TimingResult and
// RoundsResult built here (a real run's trace is on docs/gpu-runs.md's "To run" list).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "core/fs.hpp"
#include "report/run_trace.hpp"

using namespace kprof;
using nlohmann::json;

namespace {

// Five calls; call 2 ran at 1100 MHz, under the 1485 MHz floor (75% of 1980): discarded.
TimingResult fake_timing() {
  TimingResult t;
  t.warmup_calls = 3;
  t.warmup_ms = 0.9;
  t.clock_floor_mhz = 1485;
  t.call_ms = {0.30, 0.31, 0.29, 0.30};
  t.call_ms_discarded = {0.52};
  for (unsigned mhz : {1980u, 1975u, 1100u, 1980u, 1980u}) {
    CallConditions c;
    c.sm_mhz = mhz;
    c.reasons = 0;
    t.call_conditions.push_back(c);
  }
  t.during.temp_c.mean = 41.5;
  t.during.temp_c.max = 43;
  return t;
}

RoundsResult fake_rounds() {
  RoundsResult r;
  r.versions = 2;
  r.aa_arm = true;
  for (int i = 0; i < 4; ++i) {
    Round round;
    round.ms = {0.30, 0.25, 0.30};
    round.order = i % 2 ? std::vector<int>{2, 0, 1} : std::vector<int>{1, 2, 0};
    round.cond.sm_mhz = i == 2 ? 1600u : 1980u;
    round.discarded = i == 2;
    round.why = i == 2 ? "SM clock 1600 MHz outside 1940-2020 MHz" : "";
    r.rounds.push_back(round);
  }
  return r;
}

json fake_trace() {
  RoundsResult rr = fake_rounds();
  std::vector<TraceTiming> v = {trace_timing_of("v0", fake_timing()), trace_timing_of("v1", fake_timing())};
  TraceRounds tr{&rr, {"v0", "v1", "v0 (A/A)"}, 5};
  return run_trace_json(v, tr,
                        "1733390000.000000 100 run: start\nnot a line\n1733390000.250000 101 __session: ncu start\n");
}

}  // namespace

TEST(RunTrace, EveryEventHasAKnownPhaseAndMicrosecondTimes) {
  json t = fake_trace();
  ASSERT_TRUE(t["traceEvents"].is_array());
  EXPECT_EQ(t["displayTimeUnit"], "ms");
  std::set<std::string> phases;
  for (const auto& e : t["traceEvents"]) {
    std::string ph = e["ph"];
    phases.insert(ph);
    EXPECT_TRUE(ph == "X" || ph == "C" || ph == "M" || ph == "i") << e.dump();
    EXPECT_TRUE(e["pid"].is_number_integer()) << e.dump();
    if (ph != "M") EXPECT_TRUE(e["ts"].is_number()) << e.dump();
    if (ph == "X") EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
    if (ph == "C")
      for (const auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << k;
  }
  EXPECT_EQ(phases, (std::set<std::string>{"X", "C", "M", "i"}));
}

TEST(RunTrace, CallsSitInOrderWithTheDiscardedOneMarkedInPlace) {
  json t = fake_trace();
  std::vector<json> calls;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 1 && e["tid"] == 0) calls.push_back(e);
  ASSERT_EQ(calls.size(), 6u);  // the warm-up and five calls
  EXPECT_EQ(calls[0]["name"], "warm-up");
  EXPECT_DOUBLE_EQ(calls[0]["dur"].get<double>(), 900.0);  // 0.9 ms in us
  EXPECT_EQ(calls[3]["name"], "discarded call");
  EXPECT_EQ(calls[3]["args"]["sm_mhz"], 1100);
  EXPECT_DOUBLE_EQ(calls[3]["args"]["ms"].get<double>(), 0.52);
  for (size_t i = 1; i < calls.size(); ++i)  // end to end
    EXPECT_NEAR(calls[i]["ts"].get<double>(), calls[i - 1]["ts"].get<double>() + calls[i - 1]["dur"].get<double>(),
                1e-6);
  size_t clocks = 0, temps = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == "SM clock (MHz) v0") ++clocks;
    if (e["ph"] == "C" && e["name"] == "temperature (C) v0") ++temps;
  }
  EXPECT_EQ(clocks, 5u);
  EXPECT_EQ(temps, 2u);
}

TEST(RunTrace, RoundsInterleaveInTheirOrderAndTheKprofTraceIsMergedIn) {
  json t = fake_trace();
  std::vector<int> arms;
  size_t discarded = 0, instants = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == 2) {
      if (arms.size() < 3) arms.push_back(e["tid"]);
      if (e["cat"] == "discarded") ++discarded;
    }
    if (e["ph"] == "i") {
      ++instants;
      if (e["name"] == "__session: ncu start") EXPECT_NEAR(e["ts"].get<double>(), 250000.0, 1.0);
    }
  }
  EXPECT_EQ(arms, (std::vector<int>{1, 2, 0}));  // round 0's order
  EXPECT_EQ(discarded, 3u);                      // round 2, all three arms
  EXPECT_EQ(instants, 2u);                       // the malformed line skipped
  if (const char* dir = std::getenv("KPROF_PAGE_OUT")) {
    make_dirs(join_path(dir, "run"));
    write_file_atomic(join_path(join_path(dir, "run"), "trace.json"), t.dump());
  }
}
