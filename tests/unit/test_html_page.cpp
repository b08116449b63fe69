// report.html (report/html*.hpp): the one escape function, a script-injection kernel name and
// source comment, the analyze page of a real H200 export (kprof analyze end to end, its numbers
// those of analysis.json), the six-version run page (one roofline mark per version, every sample,
// the decision with the A/A floor, under 1 MB without source), --html-no-source, the compare,
// env and failed-check pages, and --no-html.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include "core/subprocess.hpp"
#include "page_fixture.hpp"
#include "report/correctness_report.hpp"
#include "report/html_pages.hpp"

using namespace kprof;
using nlohmann::json;

namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

std::string scratch(const std::string& leaf) {
  std::string dir = std::string(::testing::TempDir()) + "/kprof_html_" + std::to_string(::getpid()) + "/" + leaf;
  make_dirs(dir);
  return dir;
}

ProcessResult kprof_cmd(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {KPROF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.timeout_s = 120;
  o.env["NO_COLOR"] = "1";
  o.env["KPROF_NCU_REPORT"] = "off";
  return run_process(argv, o);
}

// Nothing on the page may reach the network: no external src/href, no @import or url().
void expect_offline(const std::string& html) {
  EXPECT_EQ(count(html, "src=\"http"), 0u);
  EXPECT_EQ(count(html, "href=\"http"), 0u);
  EXPECT_EQ(count(html, "@import"), 0u);
  EXPECT_EQ(count(html, "url("), 0u);
  EXPECT_EQ(count(html, "<script"), 1u);  // kprof's own table-sort script, nothing else
}

json gemm_analysis(int v) {
  NcuAnalysis a = analyze_ncu_csv(read_file(testpage::gemm_csv(v)));
  return ncu_json(a.table, a.verdict);
}

}  // namespace

TEST(HtmlEscape, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(html_escape("plain_kernel<float, 128>"), "plain_kernel&lt;float, 128&gt;");
  EXPECT_EQ(html_escape(""), "");
}

TEST(HtmlPage, KernelNameAndSourceCommentCannotInjectAScript) {
  json doc = gemm_analysis(5);
  doc["kernels"][0]["name"] = "gemm<\"><script>alert(1)</script>>";
  doc["kernels"][0]["hot_lines"] = {
      {"note", "<img src=x onerror=alert(4)>"},
      {"lines",
       {{{"file", "/tmp/<script>x.cu"},
         {"line", 12},
         {"text", "acc += a[i]; // </script><script>alert(2)</script>"},
         {"share_pct", 40.0},
         {"stalls", {{{"reason", "long_scoreboard<b>"}, {"share_pct", 30.0}}}},
         {"instructions", {{{"sass", "FFMA R1, R2 <img src=x onerror=alert(3)>"}, {"share_pct", 20.0}}}}}}},
      {"waste", json::array()}};
  doc["header"] = {{"Kernel", "k.cu\"><script>alert(5)</script>"}};
  std::string html = ncu_page("kprof analyze: <script>t</script>", doc, nullptr, HtmlOptions{});
  expect_offline(html);
  EXPECT_EQ(count(html, "<img"), 0u);
  EXPECT_EQ(count(html, "alert(1)</script>"), 0u);
  EXPECT_NE(html.find("// &lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("gemm&lt;&quot;&gt;&lt;script&gt;alert(1)"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(3)&gt;"), std::string::npos);
}

TEST(HtmlPage, AnalyzeOfARealExportCarriesAnalysisJsonsNumbers) {
  std::string out = scratch("analyze");
  ProcessResult r = kprof_cmd({"analyze", testpage::gemm_csv(5), "--json", "--no-roofline", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  json j = json::parse(read_file(join_path(out, "analysis.json")));
  ASSERT_EQ(j["report_html"], join_path(out, "report.html"));
  std::string html = read_file(join_path(out, "report.html"));
  expect_offline(html);
  EXPECT_LT(html.size(), 1u << 20);
  const json& k = j["kernels"][0];
  EXPECT_NE(html.find(html_escape(k["verdict"]["class"].get<std::string>())), std::string::npos);
  EXPECT_NE(html.find(html_num(k["gpu_time_ns"])), std::string::npos);
  for (const auto& e : k["verdict"]["evidence"]) {
    EXPECT_NE(html.find(html_escape(e["text"].get<std::string>())), std::string::npos) << e.dump();
    EXPECT_NE(html.find(html_escape(e["threshold"].get<std::string>())), std::string::npos) << e.dump();
  }
  for (const auto& f : k["verdict"]["findings"]) {
    EXPECT_NE(html.find(html_escape(f["formula"].get<std::string>())), std::string::npos);
    EXPECT_NE(html.find(html_num(f["gain_pct"]) + "%"), std::string::npos);
  }
  EXPECT_EQ(count(html, "class=\"mark\""), 1u);  // one kernel, one mark
  EXPECT_NE(html.find(html_num(k["roofline"]["flop_per_s"])), std::string::npos);

  std::string off = scratch("analyze_nohtml");
  ProcessResult n = kprof_cmd({"analyze", testpage::gemm_csv(5), "--json", "--no-roofline", "--no-html", "-o", off});
  ASSERT_EQ(n.exit_code, 0) << n.combined();
  EXPECT_FALSE(path_exists(join_path(off, "report.html")));
  EXPECT_FALSE(json::parse(read_file(join_path(off, "analysis.json"))).contains("report_html"));
}

TEST(HtmlPage, SixVersionRunPageShowsEveryVersionSampleAndTheDecision) {
  testpage::RunFixture f = testpage::gemm_run(6, 40);
  HtmlOptions no_src;
  no_src.include_source = false;
  std::string html = run_page(f.comparison, f.profiles, no_src);
  expect_offline(html);
  EXPECT_LT(html.size(), 1u << 20) << "a six-version run page without source must stay under 1 MB";
  EXPECT_EQ(count(html, "class=\"mark\""), 6u);
  EXPECT_EQ(count(html, "class=\"sample\""), 6u * 40u);
  EXPECT_EQ(count(html, "class=\"interval\""), 5u);  // v1..v5 against the baseline v0
  const json& d = f.comparison["decision"];
  ASSERT_TRUE(d["aa_floor_pct"].is_number());
  EXPECT_EQ(count(html, "class=\"aa-floor\""), 1u);
  EXPECT_NE(html.find("A/A floor " + html_num(d["aa_floor_pct"]) + "%"), std::string::npos);
  for (const auto& v : d["versions"]) {
    EXPECT_NE(html.find(">" + v["decision"].get<std::string>() + "</span>"), std::string::npos);
    EXPECT_NE(html.find("[" + html_num(v["interval"][0]) + ", " + html_num(v["interval"][1]) + "]"), std::string::npos);
  }
  for (const auto& v : f.comparison["versions"])
    EXPECT_NE(html.find(html_num(v["time_ms"]) + " ms"), std::string::npos);
  std::string with_src = run_page(f.comparison, f.profiles, HtmlOptions{});
  EXPECT_GE(with_src.size(), html.size());
  // The Show and the browser tests take the page and its inputs from here (KPROF_PAGE_OUT).
  if (const char* dir = std::getenv("KPROF_PAGE_OUT")) {
    make_dirs(join_path(dir, "run"));
    write_file_atomic(join_path(join_path(dir, "run"), "report.html"), with_src);
    write_file_atomic(join_path(join_path(dir, "run"), "comparison.json"), f.comparison.dump(1));
    testpage::RunFixture g = testpage::gemm_run(6, 40, 2);
    make_dirs(join_path(dir, "run2"));
    write_file_atomic(join_path(join_path(dir, "run2"), "comparison.json"), g.comparison.dump(1));
  }
}

TEST(HtmlPage, NoSourceLeavesSourceLinesAndSassOut) {
  json doc = gemm_analysis(5);
  doc["kernels"][0]["hot_lines"] = {{"lines",
                                     {{{"file", "k.cu"},
                                       {"line", 7},
                                       {"text", "SECRET_SOURCE_LINE"},
                                       {"share_pct", 50.0},
                                       {"instructions", {{{"sass", "SECRET_SASS"}, {"share_pct", 50.0}}}}}}}};
  std::string with = ncu_page("t", doc, nullptr, HtmlOptions{});
  EXPECT_NE(with.find("SECRET_SOURCE_LINE"), std::string::npos);
  EXPECT_NE(with.find("SECRET_SASS"), std::string::npos);
  HtmlOptions o;
  o.include_source = false;
  std::string without = ncu_page("t", doc, nullptr, o);
  EXPECT_EQ(without.find("SECRET_SOURCE_LINE"), std::string::npos);
  EXPECT_EQ(without.find("SECRET_SASS"), std::string::npos);
  EXPECT_NE(without.find("(source left out)"), std::string::npos);
}

TEST(HtmlPage, CompareOfTwoSavedRunsWritesItsPage) {
  std::string a = scratch("cmp_a"), b = scratch("cmp_b"), out = scratch("cmp_out");
  write_file_atomic(join_path(a, "comparison.json"), testpage::gemm_run(3, 20, 1).comparison.dump());
  write_file_atomic(join_path(b, "comparison.json"), testpage::gemm_run(3, 20, 2).comparison.dump());
  ProcessResult r = kprof_cmd({"compare", a, b, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.combined();
  json j = json::parse(read_file(join_path(out, "comparison.json")));
  ASSERT_EQ(j["report_html"], join_path(out, "report.html"));
  std::string html = read_file(join_path(out, "report.html"));
  expect_offline(html);
  EXPECT_EQ(count(html, "class=\"sample\""), 2u * 3u * 20u);
  for (const auto& v : j["versions"])
    for (const auto& run : v["runs"]) EXPECT_NE(html.find(html_num(run["row"]["time_ms"]) + " ms"), std::string::npos);
}

TEST(HtmlPage, FailedCheckAndEnvGetAPage) {
  CheckResult r;
  TrialResult t;
  OutputComparison c;
  c.name = "C<script>";
  c.count = 1024;
  c.mismatches = 3;
  c.max_abs = 0.25;
  c.reason = "3 of 1024 elements differ";
  t.outputs.push_back(c);
  r.trials.push_back(t);
  std::string html = check_page(correctness_json(r, {{"Kernel", "bad.cu"}}));
  expect_offline(html);
  EXPECT_NE(html.find("kprof check: FAIL"), std::string::npos);
  EXPECT_NE(html.find("C&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("3 of 1024 elements differ"), std::string::npos);
  EXPECT_NE(html.find(">0.25<"), std::string::npos);

  std::string out = scratch("env");
  ProcessResult e = kprof_cmd({"env", "-o", out + "/", "--timeout", "20"});
  ASSERT_NE(e.exit_code, 2) << e.combined();
  std::string page = read_file(join_path(out, "env_check.html"));
  expect_offline(page);
  json j = json::parse(read_file(join_path(out, "env_check.json")));
  EXPECT_NE(page.find(j["ready"] == true ? "READY" : "NOT READY"), std::string::npos);
  for (const auto& it : j["items"]) EXPECT_NE(page.find(html_escape(it["name"].get<std::string>())), std::string::npos);
}
