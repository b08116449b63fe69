// `kprof run`'s one Nsight Compute session (stages/ncu/session.hpp): the split of one report's rows
// between versions, by NVTX range or in launch order, and when a version falls back to a session of
// its own. The session export is built from real H200 exports (tests/data/ncu: copy, fma, tiny,
// strided, one kernel each, the same columns) concatenated as one session writes them, with the
// report IDs renumbered; each version's share must classify exactly as its own export does.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "flows/ncu_session.hpp"
#include "stages/analysis/analyze.hpp"
#include "stages/ncu/csv.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/ncu/session.hpp"
#include "test_env_util.hpp"
#include "ncu_report_guard.hpp"

using namespace kprof;
using kprof::testutil::TempDir;

namespace {

std::string fixture(const std::string& name) {
  return read_file(std::string(KPROF_TEST_DATA) + "/ncu/" + name + ".raw.csv");
}

std::string quoted_row(const CsvRecord& r) {
  std::string line;
  for (size_t i = 0; i < r.size(); ++i) {
    std::string f;
    for (char c : r[i]) f += c == '"' ? std::string("\"\"") : std::string(1, c);
    line += (i ? "," : "") + ("\"" + f + "\"");
  }
  return line + "\n";
}

/// One export holding the kernel row of each fixture in order, IDs 0.., as ncu exports a session.
std::string session_csv(const std::vector<std::string>& kernels) {
  std::string out;
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto recs = parse_csv(fixture(kernels[i]));
    if (i == 0) out += quoted_row(recs.at(0)) + quoted_row(recs.at(1));
    CsvRecord row = recs.at(2);
    row.at(0) = std::to_string(i);  // "ID": the launch index in the one report
    out += quoted_row(row);
  }
  return out;
}

/// The CUPTI-side name of each fixture kernel (abi::__cxa_demangle's spelling, not ncu's).
const std::map<std::string, std::string> kCupti = {{"copy", "k_copy(float4 const*, float4*, unsigned long)"},
                                                   {"fma", "k_fma(float const*, float*, int, int)"},
                                                   {"tiny", "k_tiny(float const*, float*, int)"},
                                                   {"strided", "k_strided(float const*, float*, int, int)"}};

std::vector<SessionRow> rows_of(const MetricTable& t, const std::vector<std::string>& ranges = {}) {
  std::vector<SessionRow> rows;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    rows.push_back({t.kernels[i].id, t.kernels[i].name, i < ranges.size() ? ranges[i] : ""});
  return rows;
}

SessionVersion version(const std::string& name, const std::vector<std::string>& kernels,
                       SessionState state = SessionState::Done) {
  SessionVersion v{name, {}, state};
  for (const auto& k : kernels) v.kernels.push_back(kCupti.at(k));
  return v;
}

/// The rows of `ids` as the table a version's analysis gets.
MetricTable subset(const MetricTable& t, const std::vector<int>& ids) {
  MetricTable m;
  m.columns = t.columns;
  for (const auto& k : t.kernels)
    if (std::find(ids.begin(), ids.end(), k.id) != ids.end()) m.kernels.push_back(k);
  return m;
}

}  // namespace

TEST(NcuSession, LaunchOrderSplitGivesEachVersionTheClassOfItsOwnExport) {
  // v0 launches two kernels per call (copy then fma), v1 one (tiny), v2 one (strided).
  MetricTable t = parse_ncu_raw_csv(session_csv({"copy", "fma", "tiny", "strided"}));
  ASSERT_EQ(t.kernels.size(), 4u);
  auto split = split_session_rows(
      rows_of(t), {version("v0", {"copy", "fma"}), version("v1", {"tiny"}), version("v2", {"strided"})});
  EXPECT_EQ(split.method, "launch order (kernel counts and names from CUPTI)");
  ASSERT_TRUE(split.attributed(0) && split.attributed(1) && split.attributed(2));
  EXPECT_EQ(split.ids[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(split.ids[1], (std::vector<int>{2}));
  EXPECT_EQ(split.ids[2], (std::vector<int>{3}));
  // Each version's share classifies as that kernel's own export does (same verdict per launch).
  const std::vector<std::vector<std::string>> own = {{"copy", "fma"}, {"tiny"}, {"strided"}};
  for (size_t v = 0; v < 3; ++v) {
    NcuAnalysis shared = analyze_metric_table(subset(t, split.ids[v]));
    ASSERT_EQ(shared.verdict.kernels.size(), own[v].size());
    for (size_t k = 0; k < own[v].size(); ++k) {
      NcuAnalysis alone = analyze_ncu_csv(fixture(own[v][k]));
      EXPECT_EQ(shared.verdict.kernels[k].cls, alone.verdict.kernels.at(0).cls) << own[v][k];
      EXPECT_NE(shared.verdict.kernels[k].cls, Bottleneck::NotClassified);
    }
  }
  EXPECT_EQ(analyze_metric_table(subset(t, split.ids[1])).verdict.cls(), Bottleneck::LatencyBound);
  EXPECT_EQ(analyze_metric_table(subset(t, split.ids[2])).verdict.cls(), Bottleneck::MemoryBound);
}

TEST(NcuSession, AMismatchKeepsTheVersionsBeforeItAndSendsTheRestToTheirOwnSessions) {
  MetricTable t = parse_ncu_raw_csv(session_csv({"copy", "tiny", "strided"}));
  // v1 launched fma under CUPTI, but the session's next row is tiny: v1 and v2 fall back.
  auto split =
      split_session_rows(rows_of(t), {version("v0", {"copy"}), version("v1", {"fma"}), version("v2", {"strided"})});
  EXPECT_TRUE(split.attributed(0));
  EXPECT_EQ(split.ids[0], (std::vector<int>{0}));
  EXPECT_FALSE(split.attributed(1));
  EXPECT_NE(split.why_not[1].find("k_tiny"), std::string::npos) << split.why_not[1];
  EXPECT_FALSE(split.attributed(2));
  EXPECT_TRUE(split.ids[2].empty());
  // A count that does not match (two kernels expected, one row left) is a mismatch too.
  split = split_session_rows(rows_of(t),
                             {version("v0", {"copy"}), version("v1", {"tiny"}), version("v2", {"strided", "strided"})});
  EXPECT_TRUE(split.attributed(0) && split.attributed(1));
  EXPECT_FALSE(split.attributed(2));
  EXPECT_NE(split.why_not[2].find("1 kernel(s) where its timed calls launched 2"), std::string::npos);
}

TEST(NcuSession, ACrashedVersionCostsItsOwnRowAndTheOnesAfterItFallBack) {
  // The runner finished v0, crashed inside v1's range (its kernel has a row or not), never reached v2.
  MetricTable t = parse_ncu_raw_csv(session_csv({"copy", "tiny"}));
  auto split = split_session_rows(rows_of(t), {version("v0", {"copy"}), version("v1", {"tiny"}, SessionState::Failed),
                                               version("v2", {"strided"}, SessionState::NotReached)});
  EXPECT_TRUE(split.attributed(0));
  EXPECT_EQ(split.ids[0], (std::vector<int>{0}));
  EXPECT_NE(split.why_not[1].find("failed inside its profiled range"), std::string::npos);
  EXPECT_FALSE(split.attributed(2));
}

TEST(NcuSession, ASkippedVersionHasNoRowsAndTheOthersStayAligned) {
  MetricTable t = parse_ncu_raw_csv(session_csv({"copy", "strided"}));
  auto split = split_session_rows(rows_of(t), {version("v0", {"copy"}), version("v1", {"tiny"}, SessionState::Skipped),
                                               version("v2", {"strided"})});
  EXPECT_TRUE(split.attributed(0));
  EXPECT_FALSE(split.attributed(1));
  EXPECT_NE(split.why_not[1].find("could not prepare it"), std::string::npos);
  EXPECT_TRUE(split.attributed(2));
  EXPECT_EQ(split.ids[2], (std::vector<int>{1}));
}

TEST(NcuSession, RowsLeftOverMakeTheWholeOrderUnverifiable) {
  // Versions of one kernel often share its name: an extra launch would shift every later version
  // unnoticed. Rows beyond what the versions launched: nobody is attributed by order.
  MetricTable t = parse_ncu_raw_csv(session_csv({"copy", "copy", "copy"}));
  auto split = split_session_rows(rows_of(t), {version("v0", {"copy"}), version("v1", {"copy"})});
  EXPECT_FALSE(split.attributed(0));
  EXPECT_FALSE(split.attributed(1));
  EXPECT_NE(split.why_not[0].find("1 row(s) more"), std::string::npos) << split.why_not[0];
}

TEST(NcuSession, NvtxRangesAttributeEachVersionOnItsOwn) {
  // With the ranges, a version that failed (v1: no row of its own) or launched a surprise costs
  // only itself: v2 after it is still attributed, even with rows of the same name.
  MetricTable t = parse_ncu_raw_csv(session_csv({"copy", "copy", "copy", "strided"}));
  std::vector<std::string> ranges = {"kprof:v0", "kprof:v1", "kprof:v1", "kprof:v2"};
  auto split = split_session_rows(rows_of(t, ranges),
                                  {version("v0", {"copy"}), version("v1", {"copy"}), version("v2", {"strided"})});
  EXPECT_EQ(split.method, "NVTX ranges");
  EXPECT_EQ(split.ids[0], (std::vector<int>{0}));
  EXPECT_FALSE(split.attributed(1));  // two rows in its range, one launch in its timed calls
  EXPECT_TRUE(split.attributed(2));
  EXPECT_EQ(split.ids[2], (std::vector<int>{3}));
  // One row without a kprof range (ncu_report could not give it): back to launch order.
  ranges[3] = "";
  EXPECT_NE(split_session_rows(rows_of(t, ranges), {version("v0", {"copy"})}).method, "NVTX ranges");
}

TEST(NcuSession, KernelNamesMatchAcrossCuptiAndNcuSpellings) {
  EXPECT_TRUE(same_kernel_name("k_copy(float4 const*, float4*, unsigned long)",
                               "k_copy(const float4 *, float4 *, unsigned long)"));
  EXPECT_TRUE(same_kernel_name("void attn::tile<64, 4>(float const*, float*)",
                               "void attn::tile<64,4>(const float *, float *)"));
  EXPECT_TRUE(same_kernel_name("_attn_fwd", "_attn_fwd"));  // Triton: no parameters
  EXPECT_FALSE(same_kernel_name("k_copy(float*)", "k_copy2(float*)"));
  EXPECT_FALSE(same_kernel_name("softmax_v1", "softmax_v2"));
}

TEST(NcuSession, RunnerMarksRoundTripThroughNcusPassThrough) {
  std::string log = "==PROF== Connected to process 42\n  | " + session_mark_line(SessionState::Done, "v0") + "\n" +
                    session_mark_line(SessionState::Skipped, "v1", "loading kernel failed\nsecond line") + "\n" +
                    session_mark_line(SessionState::Failed, "v-2", "cudaErrorIllegalAddress") + "\n" +
                    "==KPROF== session exploded v9\n";
  auto marks = read_session_marks(log);
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_EQ(marks["v0"].state, SessionState::Done);
  EXPECT_EQ(marks["v1"].state, SessionState::Skipped);
  EXPECT_EQ(marks["v1"].why, "loading kernel failed");
  EXPECT_EQ(marks["v-2"].state, SessionState::Failed);
  EXPECT_EQ(marks["v-2"].why, "cudaErrorIllegalAddress");
  EXPECT_EQ(marks.count("v9"), 0u);
}

TEST(NcuSession, PlanRoundTripsAndRejectsWhatIsMalformed) {
  std::vector<SessionPlanEntry> plan = {{"v0", {{"kernel", "a/v0.cu"}, {"warmup_calls", 3}}},
                                        {"v1", {{"kernel", "b/v0.py"}, {"dims", {{"N", "8"}}}}}};
  auto back = parse_session_plan(session_plan_json(plan));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "v0");
  EXPECT_EQ(back[0].request, plan[0].request);
  EXPECT_EQ(back[1].request, plan[1].request);
  for (const char* bad :
       {R"([])", R"({"versions": []})", R"({"versions": [{"name": "v0"}]})",
        R"({"versions": [{"name": "v0", "request": ["k"]}]})", R"({"versions": [{"name": "v0", "args": ["k"]}]})",
        R"({"versions": [{"name": "v", "request": {"kernel": "k"}}, {"name": "v", "request": {"kernel": "k"}}]})"}) {
    try {
      parse_session_plan(nlohmann::json::parse(bad));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage) << bad;
    }
  }
}

TEST(NcuSession, TheSessionsNcuCommandKeepsTheClocksAndRecordsNvtx) {
  NcuRunOptions o;
  o.target = {"/bin/kprof", "__session", "out/ncu_session.json"};
  o.metrics = {"gpu__time_duration.sum"};
  o.report_base = "out/run";
  o.nvtx = true;
  o.source = true;
  auto a = ncu_command("ncu", o);
  auto has_pair = [&](const std::string& k, const std::string& v) {
    for (size_t i = 0; i + 1 < a.size(); ++i)
      if (a[i] == k && a[i + 1] == v) return true;
    return false;
  };
  EXPECT_TRUE(has_pair("--clock-control", "none"));
  EXPECT_TRUE(has_pair("--profile-from-start", "off"));
  EXPECT_TRUE(has_pair("-o", "out/run"));
  EXPECT_TRUE(has_pair("--section", "SourceCounters"));
  EXPECT_NE(std::find(a.begin(), a.end(), "--nvtx"), a.end());
  ASSERT_GE(a.size(), 3u);
  EXPECT_EQ(a[a.size() - 2], "__session");
  EXPECT_EQ(a.back(), "out/ncu_session.json");
  o.nvtx = false;
  auto b = ncu_command("ncu", o);
  EXPECT_EQ(std::find(b.begin(), b.end(), "--nvtx"), b.end());
}

TEST(NcuSession, ReplayPassesAreKeptPerProfiledKernel) {
  NcuRunResult r;
  interpret_ncu_output(
      "==PROF== Profiling \"k_copy\" - 0: 0%....50%....100% - 22 passes\n"
      "==PROF== Profiling \"k_tiny\" - 1: 0%....50%....100% - 25 passes\n",
      0, r);
  EXPECT_EQ(r.profiled, (std::vector<std::string>{"k_copy", "k_tiny"}));
  EXPECT_EQ(r.passes, (std::vector<int>{22, 25}));
  EXPECT_EQ(r.replay_passes, 25);
}

TEST(NcuSession, OnlyVersionsWithOneKnownLaunchSequenceShareTheSession) {
  TimingResult t;
  EXPECT_NE(session_ineligible(t).find("CUPTI"), std::string::npos);  // kernel records not available
  t.kernel.available = true;
  EXPECT_NE(session_ineligible(t).find("no kernel"), std::string::npos);
  t.kernel.summary.call_sequence = {"k"};
  EXPECT_EQ(session_ineligible(t), "");
  t.kernel.summary.sequence_stable = false;
  EXPECT_NE(session_ineligible(t).find("not all launch the same"), std::string::npos);
}

TEST(NcuSession, TheSessionRunnerReadsEachVersionAsRunnerWouldAndSkipsWhatFails) {
  // No GPU needed: v0's request fails the runner's own check (a seed that is not a number), v1's
  // kernel does not exist. Each gets its "skipped" line with the reason; the runner goes on and exits 1.
  TempDir dir;
  std::vector<SessionPlanEntry> plan = {
      {"v0",
       {{"kernel", std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu"},
        {"seed", "x"},
        {"dims", {{"N", "8"}}}}},
      {"v1", {{"kernel", dir.path() + "/missing.cu"}, {"dims", {{"N", "8"}}}}}};
  std::string path = dir.path() + "/ncu_session.json";
  write_file_atomic(path, session_plan_json(plan).dump());
  ProcessOptions o;
  o.timeout_s = 60;
  o.env["KPROF_COLOR"] = "never";
  auto r = run_process({KPROF_BINARY, "__session", path}, o);
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  auto marks = read_session_marks(r.combined());
  ASSERT_EQ(marks.size(), 2u) << r.combined();
  EXPECT_EQ(marks["v0"].state, SessionState::Skipped);
  EXPECT_NE(marks["v0"].why.find("request field 'seed'"), std::string::npos) << marks["v0"].why;
  EXPECT_EQ(marks["v1"].state, SessionState::Skipped);
  // A plan that is not one: a usage error.
  write_file_atomic(path, "{\"versions\": 3}");
  EXPECT_EQ(run_process({KPROF_BINARY, "__session", path}, o).exit_code, 2);
}

TEST(NcuSession, AReportWithoutNvtxGivesNoRangesSoTheSplitGoesByLaunchOrder) {
  KPROF_REQUIRE_NCU_REPORT();
  // A real H200 report collected without --nvtx (tests/data/ncurep): ncu_report has no NVTX state
  // for its launch, so the row carries no kprof range and the split falls back to launch order.
  NcuRepReadOptions ro;
  ro.metrics = false;
  ro.source = false;
  ro.rules = false;
  ro.nvtx = true;
  NcuRep rep = read_ncu_rep(std::string(KPROF_TEST_DATA) + "/ncurep/divergent.ncu-rep", ro);
  ASSERT_EQ(rep.kernels.size(), 1u);
  EXPECT_TRUE(rep.kernels[0].nvtx_ranges.empty());
  std::vector<SessionRow> rows = {{rep.kernels[0].id, rep.kernels[0].name, ""}};
  auto split = split_session_rows(rows, {SessionVersion{"v0", {"divergent"}, SessionState::Done}});
  EXPECT_EQ(split.method, "launch order (kernel counts and names from CUPTI)");
  EXPECT_TRUE(split.attributed(0));
  EXPECT_EQ(split.ids[0], (std::vector<int>{rep.kernels[0].id}));
}

TEST(NcuSession, EachPlanEntryHoldsTheRunnerRequestOfThatVersionAlone) {
  // The session's plan and a version's fallback session give the runner the same typed request:
  // the spec and the timing's warm-up calls, clamped to 3..20.
  KernelSpec spec;
  spec.kernel = std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu";
  spec.seed = 7;
  TimingResult t;
  t.warmup_calls = 50;
  nlohmann::json req = runner_request(spec, t);
  EXPECT_EQ(req["warmup_calls"], 20);
  EXPECT_EQ(req["kernel"], spec.kernel);
  EXPECT_EQ(req["seed"], 7);
  t.warmup_calls = 1;
  EXPECT_EQ(runner_request(spec, t)["warmup_calls"], 3);
}
