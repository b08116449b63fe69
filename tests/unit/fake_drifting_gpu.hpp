// A fake GPU for the rounds and the run's verdicts on the CPU (test_rounds.cpp,
// test_run_verdicts.cpp): version v takes base_ms[v] * drift(now) * noise per call (ms), and every
// call advances the fake clock by its time plus 1 ms of kprof's restore and flush.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "stages/timing/rounds.hpp"

namespace kprof::testutil {

struct FakeDriftingGpu {
  explicit FakeDriftingGpu(std::uint64_t seed = 42) : rng(seed) {}

  std::vector<double> base_ms;                                       ///< each version's time, ms
  std::function<double(double)> drift = [](double) { return 1.0; };  ///< speed factor at a time, s
  double now = 0;                                                    ///< the fake clock, s
  std::mt19937_64 rng;
  std::normal_distribution<double> noise{0, 0.005};  ///< log-normal noise of a call, 0.5%
  std::vector<int> calls_of;                         ///< calls made of each version

  /// One call of version `v`: its time in ms.
  double call(int v) {
    const double ms = base_ms.at(static_cast<size_t>(v)) * drift(now) * std::exp(noise(rng));
    now += (ms + 1.0) / 1000;
    if (calls_of.size() <= static_cast<size_t>(v)) calls_of.resize(static_cast<size_t>(v) + 1);
    ++calls_of[static_cast<size_t>(v)];
    return ms;
  }
  /// The rounds' hooks over this fake (timed calls and its clock).
  RoundHooks hooks() {
    RoundHooks h;
    h.time_call = [this](int v, int) { return call(v); };
    h.now_s = [this] { return now; };
    return h;
  }
};

}  // namespace kprof::testutil
