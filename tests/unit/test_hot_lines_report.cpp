// Hot lines on synthetic kernels (too few samples, library headers, SASS opcodes), their Markdown
// and JSON, the ncu command that collects them, and `kprof analyze` of a real H200 .ncu-rep without
// ncu installed (through ncu_report).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "stages/analysis/analyze.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "stages/ncu/runner.hpp"
#include "report/hot_lines_report.hpp"
#include "unit/test_python_support.hpp"
#include "ncu_report_guard.hpp"

namespace kprof {
namespace {

NcuRepInstruction ins(uint64_t pc, const std::string& file, int line, const std::string& sass,
                      std::map<std::string, double> counters) {
  return NcuRepInstruction{pc, file, line, sass, std::move(counters)};
}

std::string scratch(const std::string& leaf) {
  std::string dir = std::string(::testing::TempDir()) + "/kprof_hotlines_" + std::to_string(::getpid());
  make_dirs(dir);
  return join_path(dir, leaf);
}

TEST(HotLines, SassOpcodeAndLibraryFiles) {
  EXPECT_EQ(sass_opcode("@!P0  LDG.E.CONSTANT R2, desc[UR6][R4.64]"), "LDG");
  EXPECT_EQ(sass_opcode("      HMMA.16816.F32 R0, R4, R8, R0"), "HMMA");
  EXPECT_EQ(sass_opcode("EXIT"), "EXIT");
  EXPECT_TRUE(is_library_source("/opt/cutlass/include/cute/arch/mma_sm90_gmma.hpp"));
  EXPECT_TRUE(is_library_source("/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda_fp16.hpp"));
  EXPECT_TRUE(is_library_source("/usr/lib/python3/site-packages/triton/language/standard.py"));
  EXPECT_FALSE(is_library_source("/home/me/kernels/gemm.cu"));
  EXPECT_FALSE(is_library_source("/home/me/kernels/softmax_triton.py"));
}

TEST(HotLines, FewSamplesAreFlaggedAndLibraryLinesNameTheUserLine) {
  NcuRepKernel k;
  k.id = 3;
  k.name = "gemm_kernel(float*)";
  k.source_files["/u/gemm.cu"] = "line1\nfor (int k = 0; k < K; ++k) mma(a, b, c);\n";
  k.instructions = {
      ins(0x10, "/u/gemm.cu", 2, "IMAD R0, R1, R2, R3", {{"smsp__pcsamp_sample_count", 5}, {"inst_executed", 10}}),
      ins(0x20, "/x/cutlass/include/cute/arch/mma.hpp", 77, "HMMA.16816.F32 R0, R4, R8, R0",
          {{"smsp__pcsamp_sample_count", 40},
           {"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", 30},
           {"smsp__pcsamp_warps_issue_stalled_selected", 10},
           {"inst_executed", 100},
           {"thread_inst_executed", 3200}}),
  };
  KernelHotLines h = hot_lines(k);
  EXPECT_EQ(h.kernel_id, 3);
  EXPECT_EQ(h.total_samples, 45);
  EXPECT_TRUE(h.too_few_samples);
  ASSERT_EQ(h.lines.size(), 2u);
  const HotLine& lib = h.lines[0];
  EXPECT_TRUE(lib.library);
  ASSERT_TRUE(lib.via);
  EXPECT_EQ(lib.via->line, 2);
  EXPECT_EQ(lib.via->text, "for (int k = 0; k < K; ++k) mma(a, b, c);");
  ASSERT_EQ(lib.stalls.size(), 1u);  // "selected" is issuing, not a stall
  EXPECT_EQ(lib.stalls[0].reason, "math_pipe_throttle");
  EXPECT_DOUBLE_EQ(*lib.threads_per_inst, 32.0);
  EXPECT_FALSE(h.lines[1].library);
  std::string md = hot_lines_markdown(h, 3, true);
  EXPECT_NE(md.find("Too few samples"), std::string::npos) << md;
  EXPECT_NE(md.find("entered from gemm.cu:2"), std::string::npos) << md;
  EXPECT_NE(md.find("`HMMA.16816.F32 R0, R4, R8, R0`"), std::string::npos) << md;  // --sass
  EXPECT_EQ(hot_lines_markdown(h, 3, false).find("`HMMA.16816"), std::string::npos);
  EXPECT_NE(hot_lines_text(h).find("too few to rank"), std::string::npos);
}

TEST(HotLines, NoSourceCountersSaysHowToCollectThem) {
  NcuRepKernel k;
  k.name = "k";
  KernelHotLines h = hot_lines(k);
  EXPECT_FALSE(h.has_source_counters);
  EXPECT_NE(h.note.find("SourceCounters"), std::string::npos);
  EXPECT_NE(hot_lines_markdown(h, 2, false).find("Not available"), std::string::npos);
}

TEST(HotLinesReport, FindingsLinkToTheLineAndJsonHoldsNumbers) {
  KPROF_REQUIRE_NCU_REPORT();
  NcuRep rep = read_ncu_rep(std::string(KPROF_TEST_DATA) + "/ncurep/uncoalesced_gather.ncu-rep");
  NcuAnalysis a = analyze_metric_table(metric_table_from_rep(rep));
  KernelHotLines h = hot_lines(rep.kernels[0]);
  std::string where = where_in_source_markdown(h, a.verdict.kernels[0], 4);
  int planted = kprof_test::line_of(std::string(KPROF_TEST_DATA) + "/planted/planted.cu", "PLANTED: uncoalesced");
  std::string link = "[planted.cu:" + std::to_string(planted) + "](#hot-lines-0)";
  EXPECT_NE(where.find(link), std::string::npos) << where;
  EXPECT_NE(where.find("Global load efficiency"), std::string::npos) << where;  // the finding it explains
  EXPECT_NE(hot_lines_markdown(h, 3, false).find("<a id=\"hot-lines-0\"></a>"), std::string::npos);
  nlohmann::json j = hot_lines_json(h);
  ASSERT_TRUE(j["lines"][0]["share_pct"].is_number());
  EXPECT_EQ(j["lines"][0]["line"].get<int>(), planted);
  EXPECT_TRUE(j["total_samples"].is_number());
  EXPECT_TRUE(j["lines"][0]["global_sectors_excess"].is_number());
  EXPECT_EQ(j["waste"][0]["kind"], "uncoalesced");
}

TEST(NcuRunner, SourceCollectionAddsSourceCountersOnce) {
  NcuRunOptions o;
  o.target = {"kprof", "__runner"};
  o.report_base = "out/profile";
  o.source = true;
  auto a = ncu_command("ncu", o);
  auto joined = shell_join(a);
  EXPECT_NE(joined.find("--section SourceCounters"), std::string::npos) << joined;
  EXPECT_NE(joined.find("--import-source yes"), std::string::npos) << joined;
  o.metric_set = "sections";  // already holds SourceCounters
  auto s = ncu_command("ncu", o);
  EXPECT_EQ(std::count(s.begin(), s.end(), "SourceCounters"), 1);
  o.source = false;
  joined = shell_join(ncu_command("ncu", o));
  EXPECT_EQ(joined.find("--import-source"), std::string::npos) << joined;
}

ProcessResult analyze(const std::vector<std::string>& args, std::map<std::string, std::string> env) {
  std::vector<std::string> argv = {KPROF_BINARY, "analyze"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.timeout_s = 120;
  env["NO_COLOR"] = "1";
  std::string empty = scratch("no_ncu_path");
  make_dirs(empty);
  env["PATH"] = empty;  // no ncu anywhere on PATH
  o.env = env;
  return run_process(argv, o);
}

TEST(AnalyzeCmd, NcuRepWithoutNcuGetsMetricsAndHotLines) {
  KPROF_REQUIRE_NCU_REPORT();
  std::string out = scratch("analyze_rep");
  ProcessResult r = analyze({std::string(KPROF_TEST_DATA) + "/ncurep/local_spill.ncu-rep", "-o", out, "--json"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& hl = j["kernels"][0]["hot_lines"];
  int planted = kprof_test::line_of(std::string(KPROF_TEST_DATA) + "/planted/planted.cu", "PLANTED: local_memory");
  bool found = false;
  for (const auto& w : hl["waste"])
    if (w["kind"] == "local_memory") found = w["where"]["line"].get<int>() == planted;
  EXPECT_TRUE(found) << hl["waste"].dump();
  std::string md = read_file(join_path(out, "ncu_summary.md"));
  EXPECT_NE(md.find("## Hot lines"), std::string::npos);
  EXPECT_NE(md.find("### Where in the source"), std::string::npos);
  EXPECT_NE(md.find("Read with | ncu_report: "), std::string::npos);
}

TEST(AnalyzeCmd, NcuRepWithNeitherNcuReportNorNcuSaysWhatToInstall) {
  std::string rep = std::string(KPROF_TEST_DATA) + "/ncurep/divergent.ncu-rep";
  ProcessResult r = analyze({rep, "-o", scratch("analyze_off")}, {{"KPROF_NCU_REPORT", "off"}});
  EXPECT_EQ(r.exit_code, 2) << r.combined();
  EXPECT_NE(r.err.find("needs Nsight Compute's Python module ncu_report or its ncu executable"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("pip install ncu-report=="), std::string::npos) << r.err;
}

}  // namespace
TEST(HotLinesReport, SassWithABacktickStaysOneCodeSpan) {
  // nvdisasm writes labels such as "BRA `(.L_x_0) 0x7fc8a97a5bd0" (H200 reports, tests/data/ncurep).
  EXPECT_EQ(md_code_span("BRA `(.L_x_0) 0x7fc8a97a5bd0"), "``BRA `(.L_x_0) 0x7fc8a97a5bd0``");
  EXPECT_EQ(md_code_span("`x"), "`` `x ``");
  EXPECT_EQ(md_code_span("a `` b"), "```a `` b```");
  EXPECT_EQ(md_code_span("LDG.E R2, desc[UR6][R4.64]"), "`LDG.E R2, desc[UR6][R4.64]`");
  EXPECT_EQ(md_code_span(""), "");
}

}  // namespace kprof
