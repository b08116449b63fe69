// `kprof analyze` end to end (the built binary, no GPU): the verdict on each real export, the
// same verdict as the library path `profile` uses, base-unit exports, .ncu-rep through a stand-in
// ncu (with ncu_report turned off: KPROF_NCU_REPORT=off), and the exit codes for bad input (2) and
// reports without kernels or usable metrics (1).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "stages/analysis/analyze.hpp"
#include "core/fs.hpp"
#include "flows/ceiling_cache.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "stages/ncu/csv.hpp"
#include "report/ncu_report.hpp"

using namespace kprof;

namespace {

std::string data(const std::string& name) { return std::string(KPROF_TEST_DATA) + "/ncu/" + name; }

std::string scratch(const std::string& leaf) {
  std::string dir = std::string(::testing::TempDir()) + "/kprof_analyze_" + std::to_string(::getpid());
  make_dirs(dir);
  return join_path(dir, leaf);
}

ProcessResult analyze(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  std::vector<std::string> argv = {KPROF_BINARY, "analyze"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.timeout_s = 60;
  o.env = env;
  o.env["NO_COLOR"] = "1";
  return run_process(argv, o);
}

/// Rewrites a raw export as `--print-units base` would: each listed column gets `unit` and its
/// values are multiplied by `factor`.
std::string to_base_units(const std::string& csv,
                          const std::map<std::string, std::pair<std::string, double>>& columns) {
  auto recs = parse_csv(csv);
  std::string out;
  for (size_t r = 0; r < recs.size(); ++r) {
    for (size_t c = 0; c < recs[r].size(); ++c) {
      std::string cell = recs[r][c];
      auto it = columns.find(recs[0][c]);
      if (it != columns.end() && r == 1) cell = it->second.first;
      if (it != columns.end() && r >= 2) cell = fmt_sig(*parse_number(cell) * it->second.second, 12);
      out += (c ? "," : "") + std::string("\"") + cell + "\"";
    }
    out += "\n";
  }
  return out;
}

void write_script(const std::string& path, const std::string& body) {
  write_file_atomic(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
}

}  // namespace

// A stand-in .ncu-rep for the paths that never parse it (ncu_report off, ncu's export faked):
// the "NVR\0" magic, so kprof's first check takes it as a report, and a format version (99) whose
// block layout kprof does not check.
const std::string kStandInReport = std::string("NVR\0", 4) + std::string("\x63\0\0\0", 4) + "binary";

TEST(AnalyzeCmd, EachRealExportGivesTheReadmeClass) {
  const std::pair<const char*, const char*> cases[] = {{"copy.raw.csv", "Memory-Bound (DRAM)"},
                                                       {"fma.raw.csv", "Compute-Bound (FMA pipe)"},
                                                       {"tiny.raw.csv", "Latency-Bound (too few blocks"},
                                                       {"strided.raw.csv", "Memory-Bound (DRAM)"}};
  for (const auto& [file, expect] : cases) {
    std::string dir = scratch(std::string("out_") + file);
    ProcessResult r = analyze({data(file), "--output-dir", dir});
    EXPECT_EQ(r.exit_code, 0) << file << "\n" << r.combined();
    EXPECT_NE(r.out.find(expect), std::string::npos) << file << "\n" << r.out;
    EXPECT_TRUE(path_exists(dir + "/ncu_summary.md")) << file;
    EXPECT_TRUE(path_exists(dir + "/ncu_details.md")) << file;
    EXPECT_FALSE(path_exists(dir + "/analysis.json")) << file;
  }
}

TEST(AnalyzeCmd, JsonVerdictEqualsTheLibraryPathProfileUses) {
  for (const char* file :
       {"copy.raw.csv", "fma.raw.csv", "tiny.raw.csv", "strided.raw.csv", "copy.basic-like.raw.csv"}) {
    std::string dir = scratch(std::string("json_") + file);
    ProcessResult r = analyze({data(file), "--json", "-o", dir, "--no-roofline"});
    ASSERT_EQ(r.exit_code, 0) << r.combined();
    nlohmann::json cli = nlohmann::json::parse(r.out);
    EXPECT_EQ(cli, nlohmann::json::parse(read_file(dir + "/analysis.json")));
    AnalysisContext ctx;  // what analyze adds: ncu's rule results of the report (none beside these CSVs)
    ctx.rules = read_rule_results(data(file), &ctx.rules_note);
    ctx.known_gpus = known_gpu_ceilings();  // and the ceilings known for the report's GPU (issue 42)
    NcuAnalysis lib = analyze_ncu_csv(read_file(data(file)), ctx);  // what profile calls
    ASSERT_EQ(cli["kernels"].size(), lib.verdict.kernels.size());
    EXPECT_EQ(cli["kernels"][0]["verdict"], verdict_json(lib.verdict.kernels[0])) << file;
    EXPECT_EQ(cli["call"], ncu_json(lib.table, lib.verdict)["call"]) << file;
    EXPECT_EQ(cli["source"], data(file));
  }
}

TEST(AnalyzeCmd, BasicSetExportNamesTheMissingMetrics) {
  ProcessResult r = analyze({data("copy.basic-like.raw.csv"), "-o", scratch("basic")});
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_NE(r.out.find("Memory-Bound (DRAM)"), std::string::npos);
  EXPECT_NE(r.out.find("not concluded: secondary signal \"Stall Long Scoreboard high\": needs "
                       "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("catalog metrics missing from this report"), std::string::npos);
}

TEST(AnalyzeCmd, BaseUnitExportGivesTheSameVerdictAndValues) {
  std::string raw = read_file(data("copy.raw.csv"));
  std::string base = to_base_units(raw, {{"gpu__time_duration.sum", {"nsecond", 1e3}},
                                         {"dram__bytes_read.sum", {"byte", 1e6}},
                                         {"dram__bytes_write.sum", {"byte", 1e6}},
                                         {"dram__cycles_elapsed.avg.per_second", {"cycle/nsecond", 1.0}},
                                         {"dram__bytes.sum.per_second", {"byte/second", 1e12}}});
  NcuAnalysis a = analyze_ncu_csv(raw), b = analyze_ncu_csv(base);
  EXPECT_EQ(verdict_json(a.verdict.kernels[0]), verdict_json(b.verdict.kernels[0]));
  for (const char* m : {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__cycles_elapsed.avg.per_second",
                        "dram__bytes.sum.per_second"})
    EXPECT_NEAR(*b.table.kernels[0].number(m), *a.table.kernels[0].number(m), 1e-6 * *a.table.kernels[0].number(m))
        << m;
  std::string path = scratch("copy.base.csv");
  write_file_atomic(path, base);
  ProcessResult r = analyze({path, "-o", scratch("base_out")});
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_NE(r.out.find("132 us: Memory-Bound (DRAM)"), std::string::npos) << r.out;
}

TEST(AnalyzeCmd, NotAnNcuExportIsExitTwo) {
  std::string junk = scratch("junk.csv");
  write_file_atomic(junk, "name,score\nalice,3\n");
  ProcessResult r = analyze({junk, "-o", scratch("junk_out")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not an Nsight Compute CSV export"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(scratch("junk_out") + "/ncu_summary.md"));

  ProcessResult folder = analyze({scratch("")});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("is a folder, not an ncu report"), std::string::npos) << folder.err;

  ProcessResult missing = analyze({scratch("does-not-exist.csv")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
}

TEST(AnalyzeCmd, NoKernelsOrNoUsableMetricsIsExitOne) {
  std::string empty = scratch("empty.csv");
  write_file_atomic(empty, "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"nsecond\"\n");
  ProcessResult r = analyze({empty, "-o", scratch("empty_out")});
  EXPECT_EQ(r.exit_code, 1) << r.combined();
  EXPECT_NE(r.err.find("holds no profiled kernel"), std::string::npos) << r.err;

  std::string no_sol = scratch("nosol.csv");
  write_file_atomic(no_sol,
                    "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"launch__grid_size\"\n"
                    "\"\",\"\",\"nsecond\",\"\"\n\"0\",\"k(int)\",\"1,000\",\"8\"\n");
  ProcessResult u = analyze({no_sol, "-o", scratch("nosol_out")});
  EXPECT_EQ(u.exit_code, 1) << u.combined();
  EXPECT_NE(u.err.find("no kernel has the Speed of Light metrics"), std::string::npos) << u.err;
}

TEST(AnalyzeCmd, NcuRepNeedsNcuOnPath) {
  std::string rep = scratch("r.ncu-rep");
  write_file_atomic(rep, kStandInReport);
  std::string empty_dir = scratch("empty_path");
  make_dirs(empty_dir);
  ProcessResult r = analyze({rep, "-o", scratch("rep_out")}, {{"PATH", empty_dir}, {"KPROF_NCU_REPORT", "off"}});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("needs Nsight Compute's Python module ncu_report or its ncu executable"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--page raw --print-units base"), std::string::npos) << r.err;
}

TEST(AnalyzeCmd, NcuRepIsExportedThroughNcu) {
  std::string bin = scratch("fake_ncu_ok");
  make_dirs(bin);
  // A stand-in ncu that checks kprof's arguments and prints a real export.
  write_script(bin + "/ncu",
               "[ \"$1 $3 $4 $5 $6 $7\" = \"--import --csv --page raw --print-units base\" ] || "
               "{ echo \"unexpected args: $*\" >&2; exit 3; }\n"
               "echo '==PROF== message line'\ncat '" +
                   data("fma.raw.csv") + "'\n");
  std::string rep = scratch("fma.ncu-rep");
  write_file_atomic(rep, kStandInReport);
  ProcessResult r =
      analyze({rep, "-o", scratch("rep_ok_out")}, {{"PATH", bin + ":/usr/bin:/bin"}, {"KPROF_NCU_REPORT", "off"}});
  EXPECT_EQ(r.exit_code, 0) << r.combined();
  EXPECT_NE(r.out.find("Compute-Bound (FMA pipe)"), std::string::npos) << r.out;

  std::string bad = scratch("fake_ncu_bad");
  make_dirs(bad);
  write_script(bad + "/ncu", "echo '==ERROR== Failed to open report file' >&2\nexit 1\n");
  ProcessResult f =
      analyze({rep, "-o", scratch("rep_bad_out")}, {{"PATH", bad + ":/usr/bin:/bin"}, {"KPROF_NCU_REPORT", "off"}});
  EXPECT_EQ(f.exit_code, 2) << f.combined();
  EXPECT_NE(f.err.find("ncu could not read"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("Failed to open report file"), std::string::npos) << f.err;
}

TEST(AnalyzeCmd, MissingReportArgumentIsUsageError) {
  ProcessResult r = analyze({});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
}
