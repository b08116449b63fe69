// The console line of a timing pass (flows/profile.hpp timing_progress_line): what it says of
// throttled and discarded calls.
#include <gtest/gtest.h>

#include "flows/profile.hpp"

using namespace kprof;

namespace {

TimingResult throttled_result(size_t discarded, bool kept_all) {
  TimingResult t;
  t.iters = 40;
  t.stopped_by = "time limit";
  t.call.n = kept_all ? 40 : 40 - discarded;
  t.call.median = 2.0;
  t.call_discard.throttled_seen = 40;
  t.call_discard.throttled = discarded;
  t.call_discard.total = discarded;
  t.call_discard.kept_all = kept_all;
  return t;
}

}  // namespace

TEST(TimingSteps, ProgressLineCountsDiscardedCalls) {
  std::string line = timing_progress_line(throttled_result(12, false));
  EXPECT_NE(line.find("power or thermal throttle in 40 calls"), std::string::npos) << line;
  EXPECT_NE(line.find("12 calls discarded"), std::string::npos) << line;
  EXPECT_EQ(line.find("would be"), std::string::npos) << line;
}

TEST(TimingSteps, ProgressLineSaysWhenEveryCallWouldBeDiscardedAndAllWereKept) {
  std::string line = timing_progress_line(throttled_result(40, true));
  EXPECT_NE(line.find("40 calls would be discarded, which leaves too few: all kept"), std::string::npos) << line;
}

TEST(TimingSteps, ProgressLineQuietWithoutDiscards) {
  std::string line = timing_progress_line(throttled_result(0, false));
  EXPECT_EQ(line.find("discarded"), std::string::npos) << line;
}
