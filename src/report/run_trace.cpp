#include "report/run_trace.hpp"

#include <fmt/format.h>

#include <sstream>

#include "stages/env/nvml.hpp"
#include "stages/timing/call_conditions.hpp"

namespace kprof {

namespace {

using nlohmann::json;

constexpr int kTimingPid = 1, kRoundsPid = 2, kKprofTracePid = 3;

json meta(const char* what, int pid, int tid, const std::string& name) {
  json e = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

json complete(const std::string& name, const char* cat, double ts_us, double dur_us, int pid, int tid, json args) {
  return {{"name", name},  {"cat", cat}, {"ph", "X"},  {"ts", ts_us},
          {"dur", dur_us}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

json counter(const std::string& name, double ts_us, int pid, json values) {
  return {{"name", name}, {"ph", "C"}, {"ts", ts_us}, {"pid", pid}, {"args", std::move(values)}};
}

// One version's timing pass on thread `tid` of the timing process, from `t0` (us); returns its end.
double add_timing(json& ev, const TraceTiming& v, int tid, double t0) {
  ev.push_back(meta("thread_name", kTimingPid, tid, v.name));
  double t = t0;
  if (v.warmup_calls > 0) {
    ev.push_back(complete("warm-up", "warmup", t, 1000 * v.warmup_ms, kTimingPid, tid,
                          {{"calls", v.warmup_calls}, {"ms", v.warmup_ms}}));
    t += 1000 * v.warmup_ms;
  }
  // The discard rule again, to put each kept/discarded time back in its place; when the counts
  // disagree (the rule kept every call because too few would remain), every call is kept.
  std::vector<bool> discarded;
  size_t n_disc = 0;
  for (const auto& c : v.conditions) {
    discarded.push_back(discards(c, v.clock_floor_mhz, v.discard_throttled));
    n_disc += discarded.back() ? 1 : 0;
  }
  const bool in_order =
      v.conditions.size() == v.call_ms.size() + v.call_ms_discarded.size() && n_disc == v.call_ms_discarded.size();
  if (!in_order) discarded.assign(v.call_ms.size(), false);
  size_t k = 0, d = 0;
  for (size_t i = 0; i < discarded.size(); ++i) {
    const bool disc = discarded[i];
    if (disc ? d >= v.call_ms_discarded.size() : k >= v.call_ms.size()) break;
    double ms = disc ? v.call_ms_discarded[d++] : v.call_ms[k++];
    json args = {{"ms", ms}, {"call", i}, {"kept", !disc}};
    const CallConditions* c = in_order && i < v.conditions.size() ? &v.conditions[i] : nullptr;
    if (c && c->sm_mhz) args["sm_mhz"] = *c->sm_mhz;
    if (c && c->reasons) args["clock_event_reasons"] = *c->reasons;
    ev.push_back(
        complete(disc ? "discarded call" : "call", disc ? "discarded" : "timed", t, 1000 * ms, kTimingPid, tid, args));
    if (c && c->sm_mhz) ev.push_back(counter("SM clock (MHz) " + v.name, t, kTimingPid, {{"MHz", *c->sm_mhz}}));
    if (c && c->reasons)
      ev.push_back(counter("throttle " + v.name, t, kTimingPid,
                           {{"throttled", nvml_reasons_throttle(*c->reasons) ? 1 : 0},
                            {"reasons_mask", static_cast<double>(*c->reasons)}}));
    t += 1000 * ms;
  }
  if (v.temp_mean_c) {
    ev.push_back(counter("temperature (C) " + v.name, t0, kTimingPid,
                         {{"mean", *v.temp_mean_c}, {"max", v.temp_max_c.value_or(*v.temp_mean_c)}}));
    ev.push_back(counter("temperature (C) " + v.name, t, kTimingPid,
                         {{"mean", *v.temp_mean_c}, {"max", v.temp_max_c.value_or(*v.temp_mean_c)}}));
  }
  return t;
}

void add_rounds(json& ev, const TraceRounds& r) {
  if (!r.rounds || r.rounds->rounds.empty()) return;
  ev.push_back(meta("process_name", kRoundsPid, -1, "kprof run --decide: interleaved rounds"));
  for (size_t a = 0; a < r.arm_names.size(); ++a)
    ev.push_back(meta("thread_name", kRoundsPid, static_cast<int>(a), r.arm_names[a]));
  double t = 0;
  for (size_t i = 0; i < r.rounds->rounds.size(); ++i) {
    const Round& round = r.rounds->rounds[i];
    const double start = t;
    for (int arm : round.order) {
      if (arm < 0 || static_cast<size_t>(arm) >= round.ms.size()) continue;
      double dur = 1000 * round.ms[static_cast<size_t>(arm)] * static_cast<double>(r.calls_per_slot);
      std::string name = (round.discarded ? "discarded round " : "round ") + std::to_string(i);
      ev.push_back(complete(name, round.discarded ? "discarded" : "round", t, dur, kRoundsPid, arm,
                            {{"median_ms", round.ms[static_cast<size_t>(arm)]}, {"round", i}, {"why", round.why}}));
      t += dur;
    }
    json c = {{"throttled", round.cond.throttled ? 1 : 0}};
    if (round.cond.sm_mhz)
      ev.push_back(counter("round SM clock (MHz)", start, kRoundsPid, {{"MHz", *round.cond.sm_mhz}}));
    ev.push_back(counter("round throttled", start, kRoundsPid, c));
  }
}

void add_kprof_trace(json& ev, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  double first = -1;
  bool named = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    double sec = 0;
    long pid = 0;
    if (!(ls >> sec >> pid)) continue;
    std::string what;
    std::getline(ls, what);
    if (!what.empty() && what.front() == ' ') what.erase(0, 1);
    if (first < 0) first = sec;
    if (!named) ev.push_back(meta("process_name", kKprofTracePid, -1, "KPROF_TRACE (wall clock)")), named = true;
    ev.push_back({{"name", what},
                  {"cat", "kprof_trace"},
                  {"ph", "i"},
                  {"s", "t"},
                  {"ts", (sec - first) * 1e6},
                  {"pid", kKprofTracePid},
                  {"tid", static_cast<int>(pid)}});
  }
}

}  // namespace

TraceTiming trace_timing_of(const std::string& name, const TimingResult& t) {
  TraceTiming v;
  v.name = name;
  v.warmup_calls = t.warmup_calls;
  v.warmup_ms = t.warmup_ms;
  v.call_ms = t.call_ms;
  v.call_ms_discarded = t.call_ms_discarded;
  v.conditions = t.call_conditions;
  v.clock_floor_mhz = t.clock_floor_mhz;
  v.discard_throttled = t.options.discard_throttled;
  v.temp_mean_c = t.during.temp_c.mean;
  v.temp_max_c = t.during.temp_c.max;
  return v;
}

json run_trace_json(const std::vector<TraceTiming>& versions, const TraceRounds& rounds,
                    const std::string& kprof_trace) {
  json ev = json::array();
  ev.push_back(meta("process_name", kTimingPid, -1, "kprof run: timing passes"));
  double t = 0;
  for (size_t i = 0; i < versions.size(); ++i) t = add_timing(ev, versions[i], static_cast<int>(i), t);
  add_rounds(ev, rounds);
  add_kprof_trace(ev, kprof_trace);
  return {{"traceEvents", ev},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"producer", "kprof run"},
            {"layout",
             "calls and round slots laid end to end in the order they ran, from their measured durations "
             "(kprof keeps no start time per call; the restore and L2 flush between calls are not drawn); "
             "KPROF_TRACE events on their wall-clock times from the first line"},
            {"temperature",
             "NVML's temperature over each timing pass (mean and max of the sampler's readings): "
             "the timing stage keeps the summary, not every sample"}}}};
}

}  // namespace kprof
