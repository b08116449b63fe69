// Garbage in, no verdict out (issue 50): damaged inputs are refused as such, foreign bytes keep the
// verdict, impossible values are dropped by what their metric can be, saved times that cannot be
// are refused, reads are bounded, and runs into one output folder take turns. Real inputs:
// tests/data (H200 exports and reports) and tests/fuzz/corpus.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/input_file.hpp"
#include "core/json_text.hpp"
#include "core/settings.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "flows/output_lock.hpp"
#include "fake_ncu_report.hpp"
#include "ncu_report_guard.hpp"
#include "report/comparison.hpp"
#include "stages/ncu/csv.hpp"
#include "stages/ncu/metric_table.hpp"
#include "stages/ncu/metrics.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "stages/ncu/raw_reader.hpp"
#include "stages/ncu/value_range.hpp"
#include "stages/results/saved_run_check.hpp"
#include "test_env_util.hpp"

using namespace kprof;
using kprof::testutil::fake_ncu_report;
using kprof::testutil::read_with_fake_ncu_report;
using kprof::testutil::TempDir;

namespace {

std::string data(const std::string& rel) { return std::string(KPROF_TEST_DATA) + "/" + rel; }
std::string corpus(const std::string& rel) { return std::string(KPROF_SOURCE_DIR) + "/tests/fuzz/corpus/" + rel; }

ProcessResult kprof_run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {KPROF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.timeout_s = 120;
  o.env = env;
  o.env["NO_COLOR"] = "1";
  return run_process(argv, o);
}

/// The first launch of a real export with `metric` set to `raw` in unit `unit`.
KernelMetrics with_value(const std::string& metric, const std::string& raw, const std::string& unit) {
  MetricTable t = parse_ncu_raw_csv(read_file(data("ncu/copy.raw.csv")));
  KernelMetrics k = t.kernels.at(0);
  k.metrics[metric] = make_metric_value(raw, unit);
  return k;
}

bool dropped(KernelMetrics k, const std::string& metric) {
  for (const auto& v : drop_invalid_values(k))
    if (v.metric == metric) return true;
  return false;
}

}  // namespace

// ---- foreign bytes -----------------------------------------------------------------------------

TEST(ForeignBytes, EscapedOneWayAndValidUtf8Kept) {
  EXPECT_TRUE(is_utf8("k_copy(float const*) é ✓"));
  EXPECT_FALSE(is_utf8("k\xff"));
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_FALSE(is_utf8("\xc0\xaf"));      // overlong
  EXPECT_EQ(escape_foreign_bytes("k\xffname é"), "k\\xffname é");
  EXPECT_EQ(escape_foreign_bytes("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(escape_foreign_bytes("ok ✓"), "ok ✓");
  EXPECT_EQ(escape_foreign_bytes("a\xff", /*json_text=*/true), "a\\\\xff");
}

TEST(ForeignBytes, JsonTextNeverThrowsAndMatchesMarkdown) {
  nlohmann::json j = {{"kernel", "k\xff"}, {"path\xfe", {"x", "caf\xe9"}}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what used to end in "internal error"
  std::string text = json_text(j);
  EXPECT_TRUE(is_utf8(text));
  nlohmann::json back = nlohmann::json::parse(text);
  EXPECT_EQ(back["kernel"], escape_foreign_bytes("k\xff"));  // the same escape as Markdown's
  EXPECT_EQ(back["path\\xfe"][1], "caf\\xe9");
}

TEST(ForeignBytes, AnalyzeOfAKernelNameWithFFKeepsTheVerdictUnderJson) {
  TempDir dir;
  std::string csv = read_file(data("ncu/copy.raw.csv"));
  size_t p = csv.find("k_copy");
  ASSERT_NE(p, std::string::npos);
  csv.insert(p + 1, "\xff");
  std::string path = dir / "name\xff.raw.csv";  // a foreign byte in the path too
  write_file_atomic(path, csv);
  ProcessResult r = kprof_run({"analyze", path, "-o", dir / "out", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_TRUE(is_utf8(r.out));
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j.dump().find("\\\\xff"), std::string::npos);
  for (const char* f : {"analysis.json", "ncu_summary.md", "ncu_details.md"}) {
    std::string text = read_file(dir / ("out/" + std::string(f)));
    EXPECT_TRUE(is_utf8(text)) << f;
    // The same escape: \xff in Markdown, written "\\xff" inside JSON strings (which parse to \xff).
    EXPECT_NE(text.find(ends_with(f, ".json") ? "k\\\\xff_copy" : "k\\xff_copy"), std::string::npos) << f;
  }
}

// ---- range by meaning --------------------------------------------------------------------------

TEST(RangeByMeaning, RealExportsDropNothing) {  // no false refusals on ncu's own values
  for (const char* f : {"ncu/copy.raw.csv", "ncu/fma.raw.csv", "ncu/strided.raw.csv", "ncu/tiny.raw.csv",
                        "ncu/vadd16Mi.basic.raw.csv", "ncurep/divergent.raw.csv", "ncurep/local_spill.raw.csv",
                        "ncurep/cublas_gemm_4096.raw.csv", "gemmprog/gemm_v0.raw.csv", "gemmprog/gemm_v5.raw.csv"}) {
    MetricTable t = parse_ncu_raw_csv(read_file(data(f)));
    for (auto& k : t.kernels)
      for (const auto& v : drop_invalid_values(k)) ADD_FAILURE() << f << ": " << describe(v);
  }
}

TEST(RangeByMeaning, RealReportsReadThroughNcuReportDropNothing) {
  KPROF_REQUIRE_NCU_REPORT();
  for (const char* f : {"divergent", "bank_conflict", "local_spill", "kprof_section_uncoalesced"}) {
    NcuRepReadOptions ro;
    ro.source = false;
    ro.rules = false;
    MetricTable t = metric_table_from_rep(read_ncu_rep(data(std::string("ncurep/") + f + ".ncu-rep"), ro));
    ASSERT_FALSE(t.kernels.empty()) << f;
    for (auto& k : t.kernels)
      for (const auto& v : drop_invalid_values(k)) ADD_FAILURE() << f << ": " << describe(v);
  }
}

TEST(RangeByMeaning, RefusesWhatTheIssueFound) {
  namespace m = metric;
  EXPECT_TRUE(dropped(with_value(m::kMemSol, "97.6", "msecond"), m::kMemSol));  // 9.76e+07% before
  EXPECT_TRUE(dropped(with_value(m::kSmSol, "-50", ""), m::kSmSol));            // "SM SOL -50%"
  EXPECT_TRUE(dropped(with_value(m::kSmSol, "-50", "%"), m::kSmSol));
  EXPECT_TRUE(dropped(with_value(m::kSmSol, "250", "%"), m::kSmSol));
  EXPECT_TRUE(dropped(with_value(m::kDuration, "1100", "psecond"), m::kDuration));  // read as ns before
  EXPECT_TRUE(dropped(with_value(m::kDuration, "0", "nsecond"), m::kDuration));
  EXPECT_TRUE(dropped(with_value(m::kDuration, "5", "furlong"), m::kDuration));
  EXPECT_TRUE(dropped(with_value(stall_metric("short_scoreboard"), "2.99e+299", ""), stall_metric("short_scoreboard")));
  EXPECT_TRUE(dropped(with_value(m::kWarpLatency, "5e-324", "cycle"), m::kWarpLatency));  // inf% shares before
  EXPECT_TRUE(dropped(with_value("dram__bytes_read.sum", "-4", "byte"), "dram__bytes_read.sum"));
  EXPECT_TRUE(dropped(with_value("dram__bytes_read.sum", "inf", "byte"), "dram__bytes_read.sum"));
}

// A subnormal value (the fuzzers' 4.941e-324 long-scoreboard stall, shown as "2.96e-323% of all")
// is no measurement: dropped whatever the metric's kind; 0 is kept.
TEST(RangeByMeaning, SubnormalValuesAreDroppedAndZeroKept) {
  const char* stall = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
  EXPECT_TRUE(dropped(with_value(stall, "4.941e-324", ""), stall));
  EXPECT_TRUE(dropped(with_value("dram__bytes.sum", "1e-310", "byte"), "dram__bytes.sum"));
  EXPECT_FALSE(dropped(with_value(stall, "0", ""), stall));
  EXPECT_FALSE(dropped(with_value(stall, "1e-6", ""), stall));
}

// The fuzzers' finds of the one-hour run: a share of peak by its name in "Mhz", "Kbyte" or "second"
// (shown as "L1/TEX 7.04e+07%"), and a duration whose unit is a scale off ("second" for ns: "at
// 9.06e-08% of the bound"), which its elapsed cycles at its clock show.
TEST(RangeByMeaning, SharesOfPeakByNameAndDurationsAgainstTheirCycles) {
  const char* lsu = "l1tex__lsuin_requests.avg.pct_of_peak_sustained_elapsed";
  EXPECT_TRUE(dropped(with_value(lsu, "70.4", "Mhz"), lsu));
  EXPECT_TRUE(dropped(with_value(lsu, "70.4", "Kbyte"), lsu));
  EXPECT_FALSE(dropped(with_value(lsu, "70.4", "%"), lsu));
  KernelMetrics k = parse_ncu_raw_csv(read_file(data("ncu/copy.raw.csv"))).kernels.at(0);
  ASSERT_TRUE(k.metrics.count(metric::kDuration) && k.metrics.count(metric::kGpcCyclesMax) &&
              k.metrics.count(metric::kSmFreq));
  const MetricValue real = k.metrics[metric::kDuration];
  EXPECT_FALSE(dropped(k, metric::kDuration)) << real.raw << " " << real.raw_unit;
  k.metrics[metric::kDuration] = make_metric_value(real.raw, "second");  // ns written "second"
  EXPECT_TRUE(dropped(k, metric::kDuration));
  k.metrics[metric::kDuration] = make_metric_value(fmt::format("{}", *real.value * 1000), "nsecond");  // 1000x off
  EXPECT_TRUE(dropped(k, metric::kDuration));
  k.metrics[metric::kDuration] = make_metric_value(fmt::format("{}", *real.value / 1000), "usecond");  // the same time
  EXPECT_FALSE(dropped(k, metric::kDuration));
}

TEST(RangeByMeaning, ScaledUnitsOfNcuAreStillRead) {
  namespace m = metric;
  auto alone = [](KernelMetrics k) {  // no elapsed cycles to check a made-up duration against
    k.metrics.erase(m::kGpcCyclesMax);
    return k;
  };
  EXPECT_FALSE(dropped(alone(with_value(m::kDuration, "12.5", "usecond")), m::kDuration));
  EXPECT_FALSE(dropped(alone(with_value(m::kDuration, "1.5", "msecond")), m::kDuration));
  EXPECT_FALSE(dropped(with_value("dram__bytes_read.sum", "12", "Kbyte"), "dram__bytes_read.sum"));
  EXPECT_FALSE(dropped(with_value("dram__bytes.sum.per_second", "3.2", "Tbyte/second"), "dram__bytes.sum.per_second"));
  EXPECT_FALSE(dropped(with_value("dram__bytes.sum.per_second", "900", "Gbyte/s"), "dram__bytes.sum.per_second"));
  EXPECT_FALSE(dropped(with_value(m::kSmFreq, "1.98", "Ghz"), m::kSmFreq));
  EXPECT_FALSE(dropped(with_value(m::kSmSol, "-0.004", "%"), m::kSmSol));  // ncu's counter noise
}

// Counter noise below 0 is kept as 0: the fuzzers' "SM SOL -0.5%" in a Memory-Bound summary.
TEST(RangeByMeaning, ANoiseNegativeShareIsReadAsZero) {
  KernelMetrics k = with_value(metric::kSmSol, "-0.5", "%");
  EXPECT_TRUE(drop_invalid_values(k).empty());
  ASSERT_TRUE(k.metrics[metric::kSmSol].value.has_value());
  EXPECT_EQ(*k.metrics[metric::kSmSol].value, 0.0);
}

TEST(RangeByMeaning, AnalyzeNamesTheDroppedValueAndPrintsNoVerdictFromIt) {
  TempDir dir;
  auto recs = parse_csv(read_file(data("ncu/copy.raw.csv")));
  const CsvRecord& header = recs.at(0);
  size_t c = std::find(header.begin(), header.end(), metric::kMemSol) - header.begin();
  ASSERT_LT(c, header.size());
  recs.at(1)[c] = "msecond";  // the SOL column in msecond: 9.76e+07% Memory-Bound before
  std::string csv;
  for (const auto& r : recs) {
    for (size_t i = 0; i < r.size(); ++i) csv += (i ? ",\"" : "\"") + r[i] + "\"";
    csv += "\n";
  }
  write_file_atomic(dir / "msecond.raw.csv", csv);
  ProcessResult r = kprof_run({"analyze", dir / "msecond.raw.csv", "-o", dir / "out"});
  // The value is dropped and named; the verdict comes from the values that can be (the memory
  // units' own throughputs), never from the msecond column: no e+07 % anywhere.
  EXPECT_NE(r.combined().find("impossible value(s) ignored"), std::string::npos) << r.combined();
  EXPECT_NE(r.combined().find("where \"%\" is expected"), std::string::npos) << r.combined();
  EXPECT_EQ(r.combined().find("e+07"), std::string::npos) << r.combined();
}

// ---- saved runs for compare --------------------------------------------------------------------

namespace {

VersionRow seed_row(size_t i) {
  auto j = nlohmann::json::parse(read_file(corpus("compare/gemm_run1.json")));
  return j.at("versions").at(i).get<VersionRow>();
}

std::string refusal(const VersionRow& row) {
  try {
    check_saved_times("run.json", row);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SavedRunCheck, RealTimesPass) {
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(refusal(seed_row(i)), "") << i;
}

TEST(SavedRunCheck, TimesThatCannotBeAreRefused) {
  VersionRow neg = seed_row(1);
  for (double& x : neg.time_samples_ms) x = -x;
  EXPECT_NE(refusal(neg).find("time_samples_ms[0]"), std::string::npos) << refusal(neg);
  VersionRow tiny = seed_row(1);
  for (double& x : tiny.time_samples_ms) x = 5e-324;
  EXPECT_NE(refusal(tiny).find("damaged or truncated"), std::string::npos);
  VersionRow far = seed_row(1);
  for (double& x : far.time_samples_ms) x *= 1000;
  EXPECT_NE(refusal(far).find("median of time_samples_ms"), std::string::npos) << refusal(far);
  VersionRow t0 = seed_row(2);
  t0.time_ms = -*t0.time_ms;
  EXPECT_NE(refusal(t0).find("time_ms"), std::string::npos);
  VersionRow inf = seed_row(2);
  inf.call_samples_ms[3] = std::numeric_limits<double>::infinity();
  EXPECT_NE(refusal(inf).find("call_samples_ms[3]"), std::string::npos);
}

TEST(SavedRunCheck, CompareRefusesNegatedSamplesAndTheGateDoesNotPass) {
  TempDir dir;
  auto j = nlohmann::json::parse(read_file(corpus("compare/gemm_run2.json")));
  for (auto& x : j["versions"][1]["time_samples_ms"]) x = -x.get<double>();
  write_file_atomic(dir / "b.json", j.dump());
  ProcessResult r = kprof_run(
      {"compare", corpus("compare/gemm_run1.json"), dir / "b.json", "--fail-if-slower", "5", "-o", dir / "o"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("is damaged or truncated"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(dir / "o/comparison.json"));
}

namespace {

/// Seconds `kprof compare` takes on the two corpus runs with every series grown to `n` samples
/// (the real samples repeated), written under `dir`; `err`: what it printed on stderr.
double compare_seconds(const TempDir& dir, size_t n, std::string* err) {
  const std::string sub = dir / std::to_string(n);
  make_dirs(sub);
  for (const char* run : {"gemm_run1.json", "gemm_run2.json"}) {
    auto j = nlohmann::json::parse(read_file(corpus(std::string("compare/") + run)));
    for (auto& v : j["versions"]) {
      std::vector<double> s = v["time_samples_ms"];
      std::vector<double> big;
      big.reserve(n);
      for (size_t i = 0; i < n; ++i) big.push_back(s[i % s.size()]);
      v["time_samples_ms"] = big;
      v["call_samples_ms"] = big;
    }
    write_file_atomic(sub + "/" + run, j.dump());
  }
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = kprof_run({"compare", sub + "/gemm_run1.json", sub + "/gemm_run2.json", "-o", sub + "/o"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  *err = r.err;
  return s;
}

}  // namespace

// 1M samples per series (6 versions, 2 series each, 254 MB of JSON) took 154 s before issue 50 and
// 20 s with the samples thinned (the bootstrap copied 10,000 values per resample); now a few
// seconds, with "reading FILE (N MiB)" as progress. Ten times the samples must cost about ten times
// the time, not a hundred: a quadratic step anywhere (reading, checks, thinning, the bootstrap)
// fails the ratio.
TEST(SavedRunCheck, AMillionSamplesPerRunAreComparedInSecondsAndLinearly) {
  TempDir dir;
  std::string err;
  double small = compare_seconds(dir, 100000, &err);
  double big = compare_seconds(dir, 1000000, &err);
  EXPECT_NE(err.find("compared on 10000 "), std::string::npos) << err;
  EXPECT_NE(err.find("compare: reading "), std::string::npos) << err;  // progress on the long read
  EXPECT_LT(big, 60.0);  // a few seconds on an idle machine (a shared CI machine gets room)
  EXPECT_LT(big / std::max(small, 0.05), 30.0) << small << " s at 100k, " << big << " s at 1M";
  RecordProperty("compare_100k_samples_s", std::to_string(small));
  RecordProperty("compare_1M_samples_s", std::to_string(big));
}

TEST(SavedRunCheck, DamagedJsonSaysSoAndWhereItBreaks) {
  TempDir dir;
  std::string text = read_file(corpus("compare/gemm_run1.json"));
  write_file_atomic(dir / "cut.json", text.substr(0, text.size() / 2));
  ProcessResult r = kprof_run({"compare", corpus("compare/gemm_run2.json"), dir / "cut.json", "-o", dir / "o"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("cut.json is damaged or truncated: its JSON breaks off at byte"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
}

// ---- damaged reports ---------------------------------------------------------------------------

TEST(DamagedInputs, RulesJsonWithAWrongKindIsDamagedNotInternal) {
  TempDir dir;
  std::filesystem::copy_file(data("gemmprog/gemm_v1.raw.csv"), dir / "g.raw.csv");
  auto j = nlohmann::json::parse(read_file(data("gemmprog/gemm_v1.rules.json")));
  std::string text = j.dump();
  size_t p = text.find("\"type\":");
  ASSERT_NE(p, std::string::npos);
  size_t e = text.find_first_of(",}", p);
  text = text.substr(0, p) + "\"type\":\"1\"" + text.substr(e);
  write_file_atomic(dir / "g.rules.json", text);
  ProcessResult r = kprof_run({"analyze", dir / "g.raw.csv", "-o", dir / "o", "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("g.rules.json is damaged or truncated"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(DamagedInputs, ATruncatedCsvSaysDamagedAndHowMuchWasRead) {
  TempDir dir;
  std::string csv = read_file(data("ncu/copy.raw.csv"));
  write_file_atomic(dir / "cut.raw.csv", csv.substr(0, csv.size() - 4000));  // cut inside the launch row
  ProcessResult r = kprof_run({"analyze", dir / "cut.raw.csv", "-o", dir / "o"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("damaged or truncated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cut.raw.csv"), std::string::npos) << r.err;
}

TEST(DamagedInputs, ACutNcuRepSaysDamagedNeverInternalError) {
  KPROF_REQUIRE_NCU_REPORT();
  TempDir dir;
  const std::string real = read_file(data("ncurep/divergent.ncu-rep"));
  for (double frac : {0.02, 0.1, 0.25, 0.5, 0.75, 0.95}) {
    std::string name = "cut" + std::to_string(static_cast<int>(frac * 100)) + ".ncu-rep";
    write_file_atomic(dir / name, real.substr(0, static_cast<size_t>(static_cast<double>(real.size()) * frac)));
    ProcessResult r = kprof_run({"analyze", dir / name, "-o", dir / "o", "--json"});
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.combined();
    EXPECT_NE(r.err.find("damaged or truncated"), std::string::npos) << name << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("in method"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--kernel-name"), std::string::npos) << r.err;  // no hint about ncu's filters
  }
}

namespace {

/// A copy of a real report under `dir` named `name` whose layout version (bytes 4-7) is one kprof
/// does not know (3): its first check cannot vouch for it, so it is read in a child.
std::string unknown_layout_report(const TempDir& dir, const std::string& name) {
  std::string bytes = read_file(data("ncurep/divergent.ncu-rep"));
  bytes[4] = 3;
  write_file_atomic(dir / name, bytes);
  return dir / name;
}

}  // namespace

// The closed module crashing on a report the first check cannot vouch for costs one message
// (exit 2, "damaged or truncated"), not the process: the read runs in a child.
TEST(DamagedInputs, AReaderThatCrashesOnAnUnvouchedReportCostsOneMessage) {
  TempDir dir;
  const std::string rep = unknown_layout_report(dir, "abort.ncu-rep");
  ProcessResult r = kprof_run({"analyze", rep, "-o", dir / "o", "--json"}, {{"KPROF_NCU_REPORT", fake_ncu_report()}});
  EXPECT_EQ(r.exit_code, 2) << r.combined();  // kprof itself would end by SIGABRT (no exit code)
  EXPECT_EQ(r.term_signal, 0) << r.combined();
  EXPECT_NE(r.err.find("abort.ncu-rep is damaged or truncated: Nsight Compute's ncu_report crashed reading it "
                       "(signal 6"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_TRUE(path_exists(rep + ".pid"));  // the fake did run (and abort)
  EXPECT_FALSE(path_exists(dir / "o/analysis.json"));
}

// What the child reads comes back whole; the report was loaded by another process than this one.
TEST(DamagedInputs, AnUnvouchedReportIsReadInAChildProcess) {
  TempDir dir;
  const std::string rep = unknown_layout_report(dir, "fine.ncu-rep");
  const auto read = read_with_fake_ncu_report(rep);
  ASSERT_TRUE(read.rep.has_value()) << read.why;
  ASSERT_EQ(read.rep->kernels.size(), 1u);
  EXPECT_EQ(read.rep->kernels[0].name, "child_kernel(float *)");
  EXPECT_NE(read.rep->module_origin.find("$KPROF_NCU_REPORT"), std::string::npos) << read.rep->module_origin;
  ASSERT_NE(read.loader_pid, 0);  // the fake wrote REPORT.pid
  EXPECT_NE(read.loader_pid, static_cast<long>(getpid()));
}

// ---- the wall-clock limit of a whole command -------------------------------------------------------

namespace {

/// true when process `pid` has ended (gone, or a zombie no one reaps in a container).
bool process_ended(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

}  // namespace

// Past --wall-timeout-s the command says so (exit 1) and ends, and what it started (here a stand-in
// ncu exporting a report, which would sleep for two minutes) ends with it: nothing outlives kprof.
TEST(WallClock, PastItsLimitTheCommandEndsWithEverythingItStarted) {
  TempDir dir;
  std::filesystem::copy_file(data("ncurep/divergent.ncu-rep"), dir / "r.ncu-rep");
  write_file_atomic(dir / "ncu", "#!/bin/sh\necho $$ >> " + dir / "ncu.pids" + "\nexec sleep 120\n");
  ::chmod((dir / "ncu").c_str(), 0755);
  auto t0 = std::chrono::steady_clock::now();
  const char* path = std::getenv("PATH");  // analyze exports a report with the ncu on PATH
  ProcessResult r =
      kprof_run({"analyze", dir / "r.ncu-rep", "-o", dir / "o", "--wall-timeout-s", "2"},
                {{"PATH", dir.path() + ":" + (path ? path : "/usr/bin:/bin")}, {"KPROF_NCU_REPORT", "off"}});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  EXPECT_LT(s, 30.0);
  EXPECT_NE(r.err.find("kprof analyze ran past its wall-clock limit of 2 s and was stopped"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--wall-timeout-s"), std::string::npos) << r.err;  // the hint names the option
  EXPECT_FALSE(path_exists(dir / "o/analysis.json"));
  ASSERT_TRUE(path_exists(dir / "ncu.pids")) << "the stand-in ncu never ran: " << r.combined();
  std::istringstream pids(read_file(dir / "ncu.pids"));
  for (long pid; pids >> pid;) {
    for (int i = 0; i < 50 && !process_ended(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(process_ended(pid)) << "the stand-in ncu " << pid << " outlived kprof";
    if (!process_ended(pid)) ::kill(static_cast<pid_t>(pid), SIGKILL);
  }
}

// 0 is no limit, and a negative limit is refused before anything runs.
TEST(WallClock, ZeroIsNoLimitAndANegativeOneIsRefused) {
  TempDir dir;
  ProcessResult ok = kprof_run({"analyze", data("ncu/copy.raw.csv"), "-o", dir / "o", "--wall-timeout-s", "0"});
  EXPECT_EQ(ok.exit_code, 0) << ok.combined();
  ProcessResult bad = kprof_run({"analyze", data("ncu/copy.raw.csv"), "-o", dir / "o", "--wall-timeout-s", "-1"});
  EXPECT_EQ(bad.exit_code, 2) << bad.combined();
}

// ---- bounded work ------------------------------------------------------------------------------

TEST(BoundedWork, ADeviceIsRefusedAtOnce) {
  TempDir dir;
  ProcessResult r = kprof_run({"analyze", "/dev/zero", "-o", dir / "o"});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("/dev/zero is a device, not a report file"), std::string::npos) << r.err;
  EXPECT_LT(r.wall_s, 30.0);
}

TEST(BoundedWork, AFifoWithoutWriterGetsADeadline) {
  TempDir dir;
  std::string fifo = dir / "in.raw.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Settings s = settings();
  s.input_wait_s = 0.5;
  ScopedSettings scoped(s);
  auto t0 = std::chrono::steady_clock::now();
  try {
    prepare_report_input(fifo, ".csv");
    FAIL() << "a FIFO without writer was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing was written to it"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(BoundedWork, AFifoWithAWriterIsReadWhole) {
  TempDir dir;
  std::string fifo = dir / "in.raw.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text = read_file(data("ncu/tiny.raw.csv"));
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ofstream(fifo) << text;
  });
  ReportInput in = prepare_report_input(fifo, ".csv");
  writer.join();
  EXPECT_NE(in.path, fifo);
  EXPECT_EQ(read_file(in.path), text);
}

TEST(BoundedWork, ALineAboveTheLimitIsRefusedNotHeld) {
  Settings s = settings();
  s.max_line_bytes = 4096;
  ScopedSettings scoped(s);
  std::istringstream in(std::string(1 << 20, 'x'));
  CsvReader reader(in);
  CsvRecord rec;
  try {
    reader.next(rec);
    FAIL() << "a 1 MiB line was read under a 4 KiB limit";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("longer than"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.hint()).find("KPROF_MAX_LINE_BYTES"), std::string::npos);
  }
}

TEST(BoundedWork, AFileAboveTheLimitIsRefusedNamingTheVariable) {
  Settings s = settings();
  s.max_input_bytes = 1000;
  ScopedSettings scoped(s);
  try {
    prepare_report_input(data("ncu/tiny.raw.csv"), ".csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.hint()).find("KPROF_MAX_INPUT_BYTES"), std::string::npos);
  }
}

// ---- one run, one folder -----------------------------------------------------------------------

TEST(OutputFolder, TwoHoldersTakeTurns) {
  TempDir dir;
  std::atomic<int> inside{0}, most{0};
  auto work = [&] {
    OutputFolderLock lock(dir.path());
    int now = ++inside;
    most = std::max(most.load(), now);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --inside;
  };
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i) ts.emplace_back(work);
  for (auto& t : ts) t.join();
  EXPECT_EQ(most.load(), 1);
  EXPECT_FALSE(path_exists(dir / kOutputLockName));  // the last holder deleted it: none is left behind
}

TEST(OutputFolder, ConcurrentAnalysesIntoOneFolderNeverMix) {
  TempDir dir;
  // Two different reports, one folder, at once: each run's files must all be its own.
  const std::string a = data("ncu/copy.raw.csv"), b = data("ncu/fma.raw.csv");
  for (int trial = 0; trial < 3; ++trial) {
    std::string out = dir / ("o" + std::to_string(trial));
    ProcessResult ra, rb;
    std::thread t([&] { rb = kprof_run({"analyze", b, "-o", out, "--json"}); });
    ra = kprof_run({"analyze", a, "-o", out, "--json"});
    t.join();
    ASSERT_EQ(ra.exit_code, 0) << ra.combined();
    ASSERT_EQ(rb.exit_code, 0) << rb.combined();
    // The later run's files are all there, whole, and all of one report.
    auto j = nlohmann::json::parse(read_file(out + "/analysis.json"));
    std::string src = j.at("source");
    std::string summary = read_file(out + "/ncu_summary.md");
    EXPECT_NE(summary.find(src), std::string::npos) << "summary and analysis.json from different runs";
  }
}
