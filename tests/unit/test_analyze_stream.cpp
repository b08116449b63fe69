// Large exports: the CSV reader across its buffer, the raw reader one launch at a time,
// impossible values, and analyze_ncu_file's kept launches, leading kernel and totals (the same as
// classify_call on the whole table).
#include <gtest/gtest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "stages/analysis/analyze_stream.hpp"
#include "report/analyze_report.hpp"
#include "stages/analysis/classify.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "stages/ncu/csv.hpp"
#include "stages/ncu/raw_reader.hpp"
#include "stages/ncu/value_range.hpp"
#include "report/ncu_report.hpp"

using namespace kprof;

namespace {

std::string scratch(const std::string& leaf) {
  std::string dir = std::string(::testing::TempDir()) + "/kprof_stream_" + std::to_string(::getpid());
  make_dirs(dir);
  return join_path(dir, leaf);
}

std::string quoted_line(const CsvRecord& r) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ",\"" : "\"") + r[i] + "\"";
  return s + "\n";
}

/// An export of the real copy/fma/tiny rows repeated `n` times (units of copy.raw.csv; fma's
/// and tiny's time column rewritten in us), launch i named name_<i % names> with duration `us(i)`.
std::string make_export(size_t n, size_t names, double (*us)(size_t)) {
  auto copy = parse_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  auto fma = parse_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/fma.raw.csv"));
  const CsvRecord& header = copy[0];
  auto col = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const size_t t = col("gpu__time_duration.sum"), cycles = col("gpc__cycles_elapsed.max");
  const size_t ghz = col("gpc__cycles_elapsed.avg.per_second");  // in Ghz (copy's units row)
  std::string out = quoted_line(header) + quoted_line(copy[1]);
  for (size_t i = 0; i < n; ++i) {
    CsvRecord r = i % 2 ? fma[2] : copy[2];
    r[0] = std::to_string(i);
    r[4] = "name_" + std::to_string(i % names);
    r[t] = fmt_sig(us(i), 8);
    // The elapsed cycles follow the duration, as in a real export (the reader checks one against
    // the other: stages/ncu/value_range.hpp).
    r[cycles] = fmt_sig(us(i) * 1e3 * std::stod(r[ghz]), 8);
    out += quoted_line(r);
  }
  return out;
}

}  // namespace

TEST(CsvReader, RecordsAcrossTheBufferBoundaryAndMessageLines) {
  std::string big(3 << 20, 'x');  // a field longer than the 1 MiB buffer
  std::string text = "==PROF== hello \"unbalanced\n\"a\",\"" + big + "\",\"multi\nline\"\r\n\n1,2,\"q\"\"q\"\n==tail\n";
  std::istringstream in(text);
  CsvReader r(in, /*skip_messages=*/true);
  CsvRecord rec;
  ASSERT_TRUE(r.next(rec));
  ASSERT_EQ(rec.size(), 3u);
  EXPECT_EQ(rec[1].size(), big.size());
  EXPECT_EQ(rec[2], "multi\nline");
  EXPECT_EQ(r.line(), 2u);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec, (CsvRecord{"1", "2", "q\"q"}));
  EXPECT_EQ(r.line(), 5u);
  EXPECT_FALSE(r.next(rec));
  EXPECT_EQ(r.bytes_read(), text.size());
  EXPECT_EQ(parse_csv("a,\"b,c\"\nd"), (std::vector<CsvRecord>{{"a", "b,c"}, {"d"}}));
}

TEST(NcuRawReader, ReadsOneLaunchAtATimeWithUnitsApplied) {
  std::istringstream in(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  NcuRawReader r(in);
  EXPECT_FALSE(r.long_layout());
  EXPECT_GT(r.columns().size(), 2000u);
  for (const auto& c : r.columns()) EXPECT_EQ(ncu_identity_columns().count(c), 0u) << c;
  KernelMetrics k;
  ASSERT_TRUE(r.next(k));
  EXPECT_NEAR(*k.number("gpu__time_duration.sum"), 132416.0, 1e-6);  // "132.416" in us, read in ns
  EXPECT_FALSE(r.next(k));
}

TEST(ValueRange, ImpossibleValuesAreRemovedAndPossibleOnesKept) {
  KernelMetrics k;
  auto put = [&](const std::string& name, const std::string& raw, const std::string& unit) {
    k.metrics[name] = make_metric_value(raw, unit);
  };
  put("sm__throughput.avg.pct_of_peak_sustained_elapsed", "-50", "%");
  put("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "104.9", "%");
  put("l1tex__throughput.avg.pct_of_peak_sustained_active", "180", "%");
  put("sm__warps_active.max.pct_of_peak_sustained_active", "824.5", "%");  // a per-unit max: may exceed 100%
  put("derived__pct_occupancy_per_block_size", "5706", "%");
  put("gpu__time_duration.sum", "inf", "us");
  put("dram__bytes_read.sum", "-3", "Mbyte");
  put("some__ratio", "-1.5", "");                                                          // unitless: no sign rule
  put("sm__pipe_tensor_cycles_active.min.pct_of_peak_sustained_elapsed", "-0.0055", "%");  // ncu's own noise
  auto bad = drop_invalid_values(k);
  std::vector<std::string> names;
  for (const auto& b : bad) names.push_back(b.metric);
  EXPECT_EQ(names, (std::vector<std::string>{"dram__bytes_read.sum", "gpu__time_duration.sum",
                                             "l1tex__throughput.avg.pct_of_peak_sustained_active",
                                             "sm__throughput.avg.pct_of_peak_sustained_elapsed"}));
  EXPECT_FALSE(k.number("sm__throughput.avg.pct_of_peak_sustained_elapsed").has_value());
  EXPECT_DOUBLE_EQ(*k.number("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 104.9);
  EXPECT_TRUE(k.number("sm__warps_active.max.pct_of_peak_sustained_active").has_value());
  EXPECT_TRUE(k.number("some__ratio").has_value());
  EXPECT_TRUE(k.number("sm__pipe_tensor_cycles_active.min.pct_of_peak_sustained_elapsed").has_value());
  EXPECT_EQ(describe(bad.back()), "sm__throughput.avg.pct_of_peak_sustained_elapsed = -50 %: a negative share of peak");
}

TEST(AnalyzeStream, KeepsTheLongestLaunchesAndAgreesWithClassifyCall) {
  // 300 launches over 7 names; durations vary so the top 10 are spread over several names.
  const std::string text = make_export(300, 7, [](size_t i) { return 10.0 + static_cast<double>((i * 37) % 101); });
  const std::string path = scratch("many.raw.csv");
  write_file_atomic(path, text);
  StreamedAnalysis s = analyze_ncu_file(path, 10);
  CallVerdict whole = classify_call(parse_ncu_raw_csv(text));
  EXPECT_EQ(s.launches, 300u);
  EXPECT_EQ(s.kept.verdict.leading_name, whole.leading_name);
  EXPECT_NEAR(s.kept.verdict.total_gpu_time_ns, whole.total_gpu_time_ns, 1e-6 * whole.total_gpu_time_ns);
  EXPECT_NEAR(s.kept.verdict.leading_share_pct, whole.leading_share_pct, 1e-9);
  const Verdict& lead = s.kept.verdict.kernels.at(static_cast<size_t>(s.kept.verdict.leading));
  EXPECT_EQ(lead.id, whole.kernels.at(static_cast<size_t>(whole.leading)).id);
  ASSERT_GE(s.kept.table.kernels.size(), 10u);
  ASSERT_LE(s.kept.table.kernels.size(), 11u);
  for (size_t i = 1; i < s.kept.table.kernels.size(); ++i)  // file order
    EXPECT_LT(s.kept.table.kernels[i - 1].id, s.kept.table.kernels[i].id);
  // No launch left out is longer than the 10th longest of the whole export.
  std::vector<double> times;
  for (const auto& v : whole.kernels) times.push_back(v.gpu_time_ns);
  std::sort(times.rbegin(), times.rend());
  for (const auto& v : whole.kernels) {
    bool kept = std::any_of(s.kept.verdict.kernels.begin(), s.kept.verdict.kernels.end(),
                            [&](const Verdict& k) { return k.id == v.id; });
    if (!kept) EXPECT_LE(v.gpu_time_ns, times[9]) << v.id;
  }
  EXPECT_EQ(s.others.launches, 300u - s.kept.table.kernels.size());
  size_t by_name = 0;
  for (const auto& n : s.by_name) by_name += n.totals.launches;
  EXPECT_EQ(by_name, 300u);
  std::string md = other_launches_markdown(s);
  EXPECT_NE(md.find("## Launches not shown in full"), std::string::npos);
  EXPECT_NE(md.find(std::to_string(s.others.launches) + " launches hold"), std::string::npos) << md;
}

TEST(AnalyzeStream, ALeadingKernelOfManyShortLaunchesIsReadAgainWhenNotKept) {
  // name_0 has 90 launches of 10 us (900 us); ten other launches of 50 us each are longer one by one.
  const std::string text = make_export(100, 10, [](size_t i) { return i % 10 == 0 ? 50.0 : 10.0; });
  // make_export names launch i name_<i % 10>: launches 0,10,20,... are name_0 at 50 us; the rest
  // are spread over 9 names at 10 us (90 launches): each of those names has 90 us, name_0 500 us.
  // Rename so one name holds all the short launches.
  std::string t = text;
  for (int k = 1; k < 10; ++k)
    for (size_t at; (at = t.find("\"name_" + std::to_string(k) + "\"")) != std::string::npos;)
      t.replace(at, 8, "\"short\"");
  const std::string path = scratch("lead.raw.csv");
  write_file_atomic(path, t);
  StreamedAnalysis s = analyze_ncu_file(path, 3);
  EXPECT_EQ(s.kept.verdict.leading_name, "short");
  ASSERT_EQ(s.kept.table.kernels.size(), 4u);  // the 3 longest + the leading name's longest launch
  EXPECT_EQ(s.kept.verdict.kernels.at(static_cast<size_t>(s.kept.verdict.leading)).kernel, "short");
  EXPECT_NEAR(s.kept.verdict.leading_share_pct, 100.0 * 900 / 1400, 1e-6);
}

TEST(AnalyzeStream, ImpossibleValuesAreCountedAndNoted) {
  auto copy = parse_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  CsvRecord row = copy[2];
  size_t sm = static_cast<size_t>(
      std::find(copy[0].begin(), copy[0].end(), "sm__throughput.avg.pct_of_peak_sustained_elapsed") - copy[0].begin());
  row[sm] = "-50";
  const std::string path = scratch("neg.raw.csv");
  write_file_atomic(path, quoted_line(copy[0]) + quoted_line(copy[1]) + quoted_line(row));
  StreamedAnalysis s = analyze_ncu_file(path, 10);
  EXPECT_EQ(s.invalid_values, 1u);
  ASSERT_EQ(s.invalid_examples.size(), 1u);
  EXPECT_NE(s.invalid_examples[0].find("= -50 %: a negative share of peak"), std::string::npos)
      << s.invalid_examples[0];
  const Verdict& v = s.kept.verdict.kernels.at(0);
  EXPECT_EQ(v.cls, Bottleneck::NotClassified);  // never classified on an impossible SOL
  EXPECT_TRUE(std::any_of(v.not_concluded.begin(), v.not_concluded.end(), [](const std::string& n) {
    return n.find("impossible value ignored") != std::string::npos;
  }));
}

TEST(AnalyzeStream, ClassifyingOnTheCatalogColumnsGivesTheVerdictOfTheWholeRow) {
  // analyze_ncu_file classifies launches that are not kept on the catalog's columns only: on every
  // real export the verdict must be the one of the full row.
  for (const char* f : {"copy.raw.csv", "fma.raw.csv", "tiny.raw.csv", "strided.raw.csv", "copy.basic-like.raw.csv",
                        "vadd16Mi.basic.raw.csv"}) {
    std::istringstream in(read_file(std::string(KPROF_TEST_DATA) + "/ncu/" + f));
    NcuRawReader r(in);
    const std::vector<bool> wanted = classifier_columns(r.columns());
    KernelMetrics light, full;
    ASSERT_TRUE(r.next(light, &wanted)) << f;
    r.full(full);
    EXPECT_LT(light.metrics.size(), full.metrics.size()) << f;
    EXPECT_EQ(verdict_json(classify_kernel(light)), verdict_json(classify_kernel(full))) << f;
  }
}

TEST(AnalyzeStream, TheCommandShowsTheLongestLaunchesAndSumsUpTheOthers) {
  const std::string path = scratch("thirty.raw.csv");
  write_file_atomic(path, make_export(30, 4, [](size_t i) { return 5.0 + static_cast<double>(i); }));
  const std::string out = scratch("thirty_out");
  ProcessOptions o;
  o.timeout_s = 60;
  o.env["NO_COLOR"] = "1";
  ProcessResult r = run_process({KPROF_BINARY, "analyze", path, "-o", out, "--json"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernels"].size(), 10u);  // the 10 longest: launches 20..29
  EXPECT_EQ(j["kernels"][0]["id"], 20);
  EXPECT_EQ(j["other_launches"]["launches"], 20);
  EXPECT_EQ(j["other_launches"]["launches_in_report"], 30);
  for (const char* file : {"/ncu_summary.md", "/ncu_details.md"}) {
    std::string md = read_file(out + file);
    EXPECT_NE(md.find("## Launches not shown in full"), std::string::npos) << file;
    EXPECT_NE(md.find("30 launches in the report, the 10 with the most GPU time shown in full"), std::string::npos)
        << file;
  }
  EXPECT_EQ(read_file(out + "/ncu_details.md").find("## Kernel ID 19:"), std::string::npos);  // not in full
}
