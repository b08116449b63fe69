// KPROF_TRACE=FILE (core/trace.hpp): every kprof process of a command appends its events; the
// command's exit code and output do not change; unset, nothing is written. Through the binary:
// the trace file is opened once per process.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/fs.hpp"
#include "core/text.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

namespace {

/// The trace's lines split into (time, pid, event); fails the test on a line of another shape.
std::vector<std::vector<std::string>> trace_lines(const std::string& path) {
  std::vector<std::vector<std::string>> out;
  for (const auto& line : split(read_file(path), '\n')) {
    if (line.empty()) continue;
    auto sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1);
    EXPECT_NE(sp2, std::string::npos) << line;
    if (sp2 == std::string::npos) continue;
    EXPECT_TRUE(parse_number(line.substr(0, sp1))) << line;
    out.push_back({line.substr(0, sp1), line.substr(sp1 + 1, sp2 - sp1 - 1), line.substr(sp2 + 1)});
  }
  return out;
}

}  // namespace

TEST(Trace, ACommandTracesItsStartItsStepsAndItsExitWithTheSameExitCode) {
  TempDir dir;
  std::string trace = dir / "t.txt";
  auto plain = run_kprof({"env", "--json"});
  auto traced = run_kprof({"env", "--json"}, {{"KPROF_TRACE", trace}});
  // On a GPU machine both run the counter probe under ncu: tests/gpu/run.sh runs this case alone,
  // so no other test's ncu holds the GPU's counters meanwhile.
  EXPECT_EQ(traced.exit_code, plain.exit_code) << "traced:\n" << traced.err << "\nplain:\n" << plain.err << plain.out;
  auto lines = trace_lines(trace);
  ASSERT_GE(lines.size(), 3u) << read_file(trace);
  EXPECT_EQ(lines.front()[2], "start env");
  EXPECT_EQ(lines.back()[2], "exit " + std::to_string(traced.exit_code));
  bool progress = false;
  for (const auto& l : lines) progress = progress || starts_with(l[2], "progress: env: ");
  EXPECT_TRUE(progress) << read_file(trace);
  // kprof's own lines carry its pid; on a GPU machine the counter probe ncu profiles (`kprof
  // __probe`) is a process of its own, which traces from its own start.
  std::map<std::string, std::string> first_event;
  for (const auto& l : lines) first_event.emplace(l[1], l[2]);
  for (const auto& [pid, first] : first_event)
    if (pid != lines.front()[1]) EXPECT_EQ(first, "start __probe") << read_file(trace);
}

TEST(Trace, UsageErrorsAndVersionTraceTheirExitToo) {
  TempDir dir;
  std::string trace = dir / "t.txt";
  auto r = run_kprof({"check", "--metrics", "full"}, {{"KPROF_TRACE", trace}});
  EXPECT_EQ(r.exit_code, 2);
  auto v = run_kprof({"--version"}, {{"KPROF_TRACE", trace}});
  EXPECT_EQ(v.exit_code, 0);
  auto lines = trace_lines(trace);
  ASSERT_GE(lines.size(), 4u) << read_file(trace);
  EXPECT_EQ(lines[0][2], "start check");
  bool error = false;
  for (const auto& l : lines) error = error || starts_with(l[2], "error: ");
  EXPECT_TRUE(error) << read_file(trace);
  EXPECT_EQ(lines.back()[2], "exit 0");  // --version, appended after the first command's lines
}

TEST(Trace, EmptyWritesNothing) {
  TempDir dir;  // the command's working folder stays empty: no file named "" or otherwise
  auto r = run_kprof({"--version"}, {{"KPROF_TRACE", ""}}, dir.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, run_kprof({"--version"}).out);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}
