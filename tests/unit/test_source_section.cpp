// kprof's own source-counter section (stages/ncu/source_section.hpp): it holds every
// per-instruction metric the hot lines' reader reads, it is written once into a folder named by its
// text, and the "kprof" set's ncu command collects it in place of ncu's stock SourceCounters.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <tuple>

#include "core/fs.hpp"
#include "flows/profile.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/ncu/ncu_rep.hpp"
#include "stages/ncu/runner.hpp"
#include "stages/ncu/source_section.hpp"
#include "test_env_util.hpp"
#include "unit/test_python_support.hpp"
#include "ncu_report_guard.hpp"

namespace kprof {
extern const char* const kNcuRepReaderSource;  // stages/ncu/ncu_rep_py.cpp
}

using namespace kprof;
using kprof::testutil::ScopedEnv;
using kprof::testutil::TempDir;

namespace {
/// The names in the reader's `_PC_METRICS = [...]` list.
std::vector<std::string> reader_metrics() {
  const std::string src = kNcuRepReaderSource;
  const size_t b = src.find("_PC_METRICS = [");
  const size_t e = src.find(']', b);
  std::vector<std::string> names;
  if (b == std::string::npos || e == std::string::npos) return names;
  const std::string list = src.substr(b, e - b);
  static const std::regex name_re("\"([a-z0-9_]+)\"");
  for (std::sregex_iterator it(list.begin(), list.end(), name_re), end; it != end; ++it) names.push_back((*it)[1]);
  return names;
}
}  // namespace

TEST(SourceSection, HoldsEveryPerInstructionMetricTheHotLinesRead) {
  const std::string& text = kprof_source_section_text();
  auto names = reader_metrics();
  ASSERT_GE(names.size(), 10u) << "the reader's _PC_METRICS list was not found";
  for (const auto& m : names) EXPECT_NE(text.find("Name: \"" + m + "\""), std::string::npos) << m;
  // The sampled stall reasons, which the reader finds by prefix.
  EXPECT_NE(text.find("Name: \"group:smsp__pcsamp_warp_stall_reasons\""), std::string::npos);
  EXPECT_NE(text.find(std::string("Identifier: \"") + kKprofSourceSectionId + "\""), std::string::npos);
  // Not the stock section's extra counters that kprof does not read.
  EXPECT_EQ(text.find("memdesc"), std::string::npos);
  EXPECT_EQ(text.find("_not_issued"), std::string::npos);
}

TEST(SourceSection, IsWrittenOnceIntoAFolderNamedByItsText) {
  TempDir t;
  std::string why;
  const std::string dir = write_kprof_source_section(t.path(), &why);
  ASSERT_FALSE(dir.empty()) << why;
  EXPECT_EQ(parent_dir(dir), t.path());
  EXPECT_TRUE(std::regex_match(dir.substr(t.path().size() + 1), std::regex("ncu-sections-[0-9a-f]{16}"))) << dir;
  const std::string file = join_path(dir, "KprofSourceCounters.section");
  EXPECT_EQ(read_file(file), kprof_source_section_text());
  const double mtime = file_mtime(file);
  EXPECT_EQ(write_kprof_source_section(t.path()), dir);
  EXPECT_EQ(file_mtime(file), mtime);  // the same text is not written again
  // A damaged copy is put right.
  testutil::write(file, "Identifier: \"KprofSourceCounters\"\n");
  EXPECT_EQ(write_kprof_source_section(t.path()), dir);
  EXPECT_EQ(read_file(file), kprof_source_section_text());
}

TEST(SourceSection, ABaseThatIsAFileGivesNoFolderAndSaysWhy) {
  TempDir t;
  testutil::write(t / "plain", "x");
  std::string why;
  EXPECT_EQ(write_kprof_source_section(t / "plain", &why), "");
  EXPECT_FALSE(why.empty());
}

TEST(SourceSection, TheProcessFolderIsUnderKprofsCache) {
  TempDir t;
  ScopedEnv cache("KPROF_CACHE_DIR", t.path());
  std::string why;
  const std::string dir = kprof_source_section_folder(&why);
  ASSERT_FALSE(dir.empty()) << why;
  EXPECT_EQ(parent_dir(dir), t.path());
  EXPECT_TRUE(path_exists(join_path(dir, "KprofSourceCounters.section")));
}

TEST(SourceSection, TheKprofSetCollectsItInPlaceOfTheStockSection) {
  NcuRunOptions o;
  o.target = {"kprof", "__runner"};
  o.report_base = "out/profile";
  o.source = true;
  o.source_section_folder = "/cache/ncu-sections-0123456789abcdef";
  auto a = ncu_command("ncu", o);
  auto pair_at = [&](const std::vector<std::string>& v, const std::string& k, const std::string& val) {
    for (size_t i = 0; i + 1 < v.size(); ++i)
      if (v[i] == k && v[i + 1] == val) return true;
    return false;
  };
  EXPECT_TRUE(pair_at(a, "--section-folder", o.source_section_folder));
  EXPECT_TRUE(pair_at(a, "--section", "KprofSourceCounters"));
  EXPECT_EQ(std::count(a.begin(), a.end(), "SourceCounters"), 0);
  EXPECT_TRUE(pair_at(a, "--import-source", "yes"));
  // --metrics sections / full read ncu's own section folder: the stock SourceCounters, once.
  o.metric_set = "sections";
  auto s = ncu_command("ncu", o);
  EXPECT_EQ(std::count(s.begin(), s.end(), "--section-folder"), 0);
  EXPECT_EQ(std::count(s.begin(), s.end(), "SourceCounters"), 1);
  // Without source collection neither section.
  o.metric_set = "kprof";
  o.source = false;
  auto n = ncu_command("ncu", o);
  EXPECT_EQ(std::count(n.begin(), n.end(), "--section-folder"), 0);
  EXPECT_EQ(std::count(n.begin(), n.end(), "KprofSourceCounters"), 0);
}

TEST(SourceSection, KprofsProfilesCollectItUnlessStockIsAskedFor) {
  TempDir t;
  ScopedEnv cache("KPROF_CACHE_DIR", t.path());
  KernelSpec spec;
  ProfileSettings s;
  s.source = true;
  // The folder is made once per process (another test may have made it under its own cache).
  const std::string folder = session_ncu_options(spec, s).source_section_folder;
  EXPECT_EQ(folder, kprof_source_section_folder());
  EXPECT_TRUE(path_exists(join_path(folder, "KprofSourceCounters.section"))) << folder;
  s.stock_source_section = true;  // the hidden --stock-source-section
  EXPECT_EQ(session_ncu_options(spec, s).source_section_folder, "");
  s.stock_source_section = false;
  s.metric_set = "full";  // ncu's own sections, SourceCounters among them
  EXPECT_EQ(session_ncu_options(spec, s).source_section_folder, "");
  s.metric_set = "kprof";
  s.source = false;
  EXPECT_EQ(session_ncu_options(spec, s).source_section_folder, "");
}

namespace {
/// Per source line of `rep`'s first launch: the counted (not sampled) per-instruction figures.
std::map<int, std::vector<double>> counted_by_line(const std::string& rep_path) {
  NcuRep rep = read_ncu_rep(rep_path);
  std::map<int, std::vector<double>> out;
  if (rep.kernels.empty()) return out;
  HotLinesOptions o;
  o.top = 100;
  for (const HotLine& l : hot_lines(rep.kernels[0], o).lines)
    out[l.where.line] = {l.inst_executed,     l.threads_per_inst.value_or(-1), l.global_sectors, l.global_sectors_ideal,
                         l.shared_wavefronts, l.shared_wavefronts_ideal,       l.local_sectors};
  return out;
}
}  // namespace

// Real H200 reports of the same planted launches (tests/data/ncurep/README.md): `kprof profile`
// with KprofSourceCounters, and `ncu --set full` with the stock SourceCounters. Counted metrics are
// exact, so the figures of every line both rank must agree (a line enters the ranking by its warp
// samples, which differ run to run: they are not compared), the planted line among them.
TEST(SourceSection, ItsReportsCountWhatTheStockSectionCounts) {
  KPROF_REQUIRE_NCU_REPORT();
  const std::string d = std::string(KPROF_TEST_DATA) + "/ncurep/";
  const std::string planted = std::string(KPROF_TEST_DATA) + "/planted/planted.cu";
  for (const auto& [mine, stock, marker] :
       {std::tuple{"kprof_section_uncoalesced", "uncoalesced_gather", "PLANTED: uncoalesced"},
        std::tuple{"kprof_section_bank_conflict", "bank_conflict", "PLANTED: bank_conflict"}}) {
    auto a = counted_by_line(d + mine + ".ncu-rep");
    auto b = counted_by_line(d + stock + ".ncu-rep");
    const int line = kprof_test::line_of(planted, marker);
    ASSERT_TRUE(a.count(line) && b.count(line)) << mine << ": planted line " << line;
    size_t common = 0;
    for (const auto& [l, figures] : b) {
      if (!a.count(l)) continue;
      ++common;
      for (size_t i = 0; i < figures.size(); ++i)
        EXPECT_DOUBLE_EQ(a[l][i], figures[i]) << mine << ":" << l << " #" << i;
    }
    EXPECT_GE(common, 2u) << mine;
    EXPECT_GT(a[line][0], 0) << "instructions executed on the planted line";
  }
}
