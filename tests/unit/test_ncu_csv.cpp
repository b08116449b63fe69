// ncu CSV parsing: the CSV reader, unit normalisation, and parse_ncu_raw_csv on the real H200
// exports (tests/data/ncu) and on the edge cases ncu produces: quoted fields with commas,
// thousands separators, a units row with empty cells, "n/a", several kernels, message lines,
// the long (details-page) layout, and text that is not an ncu export.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "stages/ncu/csv.hpp"
#include "stages/ncu/metric_table.hpp"

using namespace kprof;

namespace {

std::string fixture(const std::string& name) { return read_file(std::string(KPROF_TEST_DATA) + "/ncu/" + name); }

/// Expects parse_ncu_raw_csv(text) to throw a usage error (exit 2) whose message contains `what`.
void expect_not_ncu(const std::string& text, const std::string& what) {
  try {
    parse_ncu_raw_csv(text);
    FAIL() << "accepted: " << text.substr(0, 80);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

}  // namespace

TEST(Csv, QuotedFieldsKeepCommasQuotesAndNewlines) {
  auto recs = parse_csv("\"a,b\",\"say \"\"hi\"\"\",plain\r\n\"two\nlines\",,\"\"\n\n");
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0], (CsvRecord{"a,b", "say \"hi\"", "plain"}));
  EXPECT_EQ(recs[1], (CsvRecord{"two\nlines", "", ""}));
}

TEST(Csv, UnterminatedQuoteEndsAtEndOfText) {
  auto recs = parse_csv("\"x\",\"unterminated");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0], (CsvRecord{"x", "unterminated"}));
}

TEST(NormalizeUnit, BringsNcuUnitsToBaseUnits) {
  struct Case {
    const char* in;
    double factor;
    const char* unit;
  };
  const Case cases[] = {{"us", 1e3, "ns"},
                        {"ms", 1e6, "ns"},
                        {"nsecond", 1, "ns"},
                        {"usecond", 1e3, "ns"},
                        {"second", 1e9, "ns"},
                        {"Mbyte", 1e6, "byte"},
                        {"Kbyte", 1e3, "byte"},
                        {"Gbyte", 1e9, "byte"},
                        {"byte", 1, "byte"},
                        {"Gbyte/s", 1e9, "byte/s"},
                        {"Tbyte/s", 1e12, "byte/s"},
                        {"byte/second", 1, "byte/s"},
                        {"Ghz", 1e9, "Hz"},
                        {"Mhz", 1e6, "Hz"},
                        {"hz", 1, "Hz"},
                        {"cycle/nsecond", 1e9, "Hz"},
                        {"cycle/second", 1, "Hz"},
                        {"sector/ns", 1e9, "sector/s"},
                        {"Kbyte/cycle", 1e3, "byte/cycle"},
                        {"%/Kbyte", 1e-3, "%/byte"},
                        {"Kbyte/block", 1e3, "byte/block"},
                        {"%", 1, "%"},
                        {"inst/cycle", 1, "inst/cycle"},
                        {"", 1, ""},
                        {"register/thread", 1, "register/thread"}};
  for (const auto& c : cases) {
    NormalizedUnit n = normalize_unit(c.in);
    EXPECT_DOUBLE_EQ(n.factor, c.factor) << c.in;
    EXPECT_EQ(n.unit, c.unit) << c.in;
  }
}

TEST(ParseNcuCsv, RealExportHasOneKernelWithIdentityAndBaseUnits) {
  MetricTable t = parse_ncu_raw_csv(fixture("copy.raw.csv"));
  ASSERT_EQ(t.kernels.size(), 1u);
  const KernelMetrics& k = t.kernels[0];
  EXPECT_EQ(k.id, 0);
  EXPECT_EQ(k.name, "k_copy(const float4 *, float4 *, unsigned long)");
  EXPECT_EQ(k.short_name(), "k_copy");
  EXPECT_EQ(k.block, "(256, 1, 1)");
  EXPECT_EQ(k.grid, "(1056, 1, 1)");
  EXPECT_EQ(k.cc, "9.0");
  EXPECT_FALSE(k.has_column("Kernel Name"));  // identity columns are not metrics
  EXPECT_EQ(t.columns.size(), 2238u - 11u);
  // "us" -> ns; thousands separators; Mbyte -> byte (ncu's prefixes are powers of 1000).
  EXPECT_NEAR(*k.number("gpu__time_duration.sum"), 132416.0, 1e-6);
  EXPECT_DOUBLE_EQ(*k.number("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 524288.0);
  EXPECT_NEAR(*k.number("dram__bytes_read.sum"), 268451584.0, 1e-3);
  EXPECT_EQ(k.metrics.at("dram__bytes_read.sum").raw_unit, "Mbyte");
  EXPECT_EQ(k.metrics.at("dram__bytes_read.sum").unit, "byte");
  EXPECT_NEAR(*k.number("dram__cycles_elapsed.avg.per_second"), 3.198788e9, 1.0);
  // Text cells keep their text and have no number; empty cells are missing.
  EXPECT_EQ(k.text("launch__cluster_scheduling_policy"), "PolicySpread");
  EXPECT_FALSE(k.number("launch__cluster_scheduling_policy").has_value());
  EXPECT_TRUE(k.has_column("FBSP.TriageCompute.dramc__throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_FALSE(k.number("FBSP.TriageCompute.dramc__throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_FALSE(k.number("sass__inst_executed_register_spilling_mem_local").has_value());  // "no data"
}

TEST(ParseNcuCsv, DurationUnitsDifferPerExportButNormaliseToNanoseconds) {
  // fma's export writes gpu__time_duration in "ms", copy's in "us".
  MetricTable fma = parse_ncu_raw_csv(fixture("fma.raw.csv"));
  EXPECT_EQ(fma.kernels[0].metrics.at("gpu__time_duration.sum").raw_unit, "ms");
  EXPECT_NEAR(*fma.kernels[0].number("gpu__time_duration.sum"), 2323584.0, 1e-3);
}

TEST(ParseNcuCsv, EdgeCasesQuotedCommasSeparatorsUnitsRowNaAndSeveralKernels) {
  const std::string csv =
      "==PROF== Connected to process 7 (/bin/app \"quoted)\n"
      "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\","
      "\"gpu__time_duration.sum\",\"launch__grid_size\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
      "\"dram__bytes_read.sum\"\r\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"\",\"%\",\"Gbyte\"\r\n"
      "\"0\",\"1\",\"void k<int, 2>(float *, int)\",\"(256, 1, 1)\",\"(4096, 1, 1)\",\"9.0\","
      "\"1,234.5\",\"4,096\",\"n/a\",\"1.5\"\r\n"
      "\"1\",\"1\",\"other(int)\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"9.0\",\"2\",\"1\",\"nan\",\"\"\r\n"
      "==WARNING== Found outstanding GPU clock reset\n";
  MetricTable t = parse_ncu_raw_csv(csv);
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.columns,
            (std::vector<std::string>{"gpu__time_duration.sum", "launch__grid_size",
                                      "sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum"}));
  const KernelMetrics& a = t.kernels[0];
  EXPECT_EQ(a.name, "void k<int, 2>(float *, int)");
  EXPECT_EQ(a.short_name(), "void k<int, 2>");
  EXPECT_DOUBLE_EQ(*a.number("gpu__time_duration.sum"), 1234500.0);
  EXPECT_DOUBLE_EQ(*a.number("launch__grid_size"), 4096.0);
  EXPECT_FALSE(a.number("sm__throughput.avg.pct_of_peak_sustained_elapsed").has_value());
  EXPECT_EQ(a.metrics.at("sm__throughput.avg.pct_of_peak_sustained_elapsed").raw, "n/a");
  EXPECT_DOUBLE_EQ(*a.number("dram__bytes_read.sum"), 1.5e9);
  const KernelMetrics& b = t.kernels[1];
  EXPECT_EQ(b.id, 1);
  EXPECT_DOUBLE_EQ(*b.number("gpu__time_duration.sum"), 2000.0);
  EXPECT_FALSE(b.number("sm__throughput.avg.pct_of_peak_sustained_elapsed").has_value());  // "nan"
  EXPECT_FALSE(b.number("dram__bytes_read.sum").has_value());                              // ""
}

TEST(ParseNcuCsv, HeaderWithoutKernelsIsAcceptedButNotWithoutTheUnitsRow) {
  MetricTable none = parse_ncu_raw_csv(
      "\"ID\",\"Kernel Name\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
      "\"\",\"\",\"%\"\n");
  EXPECT_TRUE(none.kernels.empty());
  // Without ncu's units row every value would be read in the wrong unit (132 us as 132 ns).
  expect_not_ncu("\"ID\",\"Kernel Name\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n\"3\",\"k\",\"12.5\"\n",
                 "no units row");
  expect_not_ncu("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n", "no units row");
  // A row in its place that is not ncu's: a number, or a value under an identity column.
  expect_not_ncu("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"132.4\"\n\"0\",\"k\",\"1\"\n",
                 "not ncu's units row");
  expect_not_ncu("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"k\",\"usecond\"\n", "not ncu's units row");
}

TEST(ParseNcuCsv, LongDetailsLayoutIsPivotedIntoRows) {
  const std::string csv =
      "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\",\"Section Name\","
      "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"9\",\"k\",\"(128, 1, 1)\",\"(8, 1, 1)\",\"8.0\",\"Command line profiler metrics\","
      "\"gpu__time_duration.sum\",\"nsecond\",\"5,120\"\n"
      "\"0\",\"9\",\"k\",\"(128, 1, 1)\",\"(8, 1, 1)\",\"8.0\",\"Command line profiler metrics\","
      "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"42.3\"\n"
      "\"1\",\"9\",\"k2\",\"(64, 1, 1)\",\"(2, 1, 1)\",\"8.0\",\"Command line profiler metrics\","
      "\"gpu__time_duration.sum\",\"usecond\",\"1.5\"\n";
  MetricTable t = parse_ncu_raw_csv(csv);
  ASSERT_EQ(t.kernels.size(), 2u);
  EXPECT_EQ(t.columns.size(), 2u);
  EXPECT_DOUBLE_EQ(*t.kernels[0].number("gpu__time_duration.sum"), 5120.0);
  EXPECT_DOUBLE_EQ(*t.kernels[0].number("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 42.3);
  EXPECT_EQ(t.kernels[1].name, "k2");
  EXPECT_DOUBLE_EQ(*t.kernels[1].number("gpu__time_duration.sum"), 1500.0);
}

TEST(ParseNcuCsv, GarbageIsRejectedWithAHint) {
  expect_not_ncu("", "no header row");
  expect_not_ncu("hello world\nthis is not a csv\n", "no header row");
  expect_not_ncu(
      "\x7f"
      "ELF\x01\x02\x03 binary junk",
      "no header row");
  expect_not_ncu("\"ID\",\"Name\",\"Score\"\n\"1\",\"x\",\"3\"\n", "Kernel Name");
  expect_not_ncu("\"ID\",\"Kernel Name\",\"Duration\"\n\"0\",\"k\",\"3\"\n", "no column holds an ncu metric");
}

TEST(ParseNcuCsv, TruncatedRowIsAnInputError) {
  std::string text = fixture("copy.raw.csv");
  text = text.substr(0, text.size() - 5000);  // cut the kernel row short
  try {
    parse_ncu_raw_csv(text);
    FAIL() << "a truncated row was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("fields where its header has"), std::string::npos) << e.what();
  }
}
