// The bad-input corpus (tests/bad_inputs/cases.tsv): every row is a wrong kprof command with the
// exit code and message fragment it must produce, run through the built binary as its own test
// case. No GPU is needed: input errors are found before kprof touches the GPU.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "kernel/elf_check.hpp"
#include "stages/ncu/csv.hpp"
#include "ncu_report_guard.hpp"

using namespace kprof;

namespace {

const std::string kCorpus = std::string(KPROF_SOURCE_DIR) + "/tests/bad_inputs";

struct Case {
  std::string name, fragment, args, env;
  int exit_code = 0;
};

/// gtest shows a case by its name (not its bytes) in test listings.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name << ": kprof " << c.args; }

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  std::ifstream in(kCorpus + "/cases.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto cols = split(line, '\t');
    if (cols.size() < 4) continue;
    cases.push_back({cols[0], cols[2], cols[3], cols.size() > 4 ? cols[4] : "", std::stoi(cols[1])});
  }
  return cases;
}

/// A row of copy.raw.csv written back as ncu writes it (every field quoted).
std::string csv_line(const CsvRecord& r) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ",\"" : "\"") + r[i] + "\"";
  return s + "\n";
}

/// Exports derived from the real copy.raw.csv, each with one thing wrong.
void make_exports(const std::string& dir) {
  auto recs = parse_csv(read_file(std::string(KPROF_TEST_DATA) + "/ncu/copy.raw.csv"));
  const CsvRecord &header = recs.at(0), &units = recs.at(1), &row = recs.at(2);
  auto col = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  auto with = [&](std::vector<std::pair<std::string, std::string>> cells) {
    CsvRecord r = row;
    for (const auto& [name, value] : cells) r.at(col(name)) = value;
    return csv_line(r);
  };
  const std::string sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                    mem = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
  CsvRecord data_as_units = row;
  data_as_units[0] = "";
  write_file_atomic(dir + "/no_units.raw.csv", csv_line(header) + csv_line(row));
  write_file_atomic(dir + "/units_not_ncu.raw.csv", csv_line(header) + csv_line(data_as_units) + csv_line(row));
  write_file_atomic(dir + "/negative_sol.raw.csv",
                    csv_line(header) + csv_line(units) + with({{sm, "-50"}, {mem, "-12.5"}}));
  write_file_atomic(dir + "/sol_above_100.raw.csv",
                    csv_line(header) + csv_line(units) + with({{sm, "250"}, {mem, "180"}}));
  write_file_atomic(dir + "/infinite_duration.raw.csv",
                    csv_line(header) + csv_line(units) + with({{"gpu__time_duration.sum", "inf"}}));
  write_file_atomic(dir + "/sol_within_margin.raw.csv", csv_line(header) + csv_line(units) + with({{mem, "101.5"}}));
  write_file_atomic(dir + "/header_units_only.raw.csv", csv_line(header) + csv_line(units));
  std::string full = csv_line(header) + csv_line(units) + csv_line(row);
  write_file_atomic(dir + "/truncated.raw.csv", full.substr(0, full.size() - 4000));
}

/// ELF files that are not a kernel library, compiled with the system's C/C++ compiler.
void make_elf_files(const std::string& dir) {
  auto build = [&](const std::string& file, const std::string& text, std::vector<std::string> argv) {
    write_file_atomic(dir + "/" + file, text);
    argv.push_back(dir + "/" + file);
    ProcessResult r = run_process(argv);
    ASSERT_TRUE(r.ok()) << shell_join(argv) << "\n" << r.combined();
  };
  const std::string cc = "cc", cxx = "c++";
  build("obj.c", "int x(void) { return 1; }\n", {cc, "-c", "-o", dir + "/obj.o"});
  build("exe.c", "int main(void) { return 0; }\n", {cc, "-no-pie", "-o", dir + "/exe"});
  build("nosolve.c", "int helper(int x) { return x; }\n", {cc, "-shared", "-fPIC", "-o", dir + "/nosolve.so"});
  build("mangled.cpp", "void solve(const float*, const float*, float*, int) {}\n",
        {cxx, "-shared", "-fPIC", "-o", dir + "/mangled.so"});
  build("static.c", "static void solve(float* a) { a[0] = 1; }\nvoid entry(float* a) { solve(a); }\n",
        {cc, "-shared", "-fPIC", "-O0", "-o", dir + "/static.so"});
  build("hidden.c", "__attribute__((visibility(\"hidden\"))) void solve(float* a) { a[0] = 1; }\n",
        {cc, "-shared", "-fPIC", "-o", dir + "/hidden.so"});
  build("undefined.c", "void solve(float* a);\nvoid entry(float* a) { solve(a); }\n",
        {cc, "-shared", "-fPIC", "-o", dir + "/undefined.so"});
  // A library marked as aarch64: e_machine (offset 18, little-endian) set to EM_AARCH64 (183).
  std::string bytes = read_file(dir + "/nosolve.so");
  bytes[18] = static_cast<char>(183);
  bytes[19] = 0;
  write_file_atomic(dir + "/aarch64.so", bytes);
}

/// The scratch folder with the generated files, made once per test run.
const std::string& generated() {
  static std::string dir;
  static std::once_flag once;
  std::call_once(once, [] {
    dir = std::string(::testing::TempDir()) + "/kprof_bad_inputs_" + std::to_string(::getpid());
    make_dirs(dir + "/cache");
    make_exports(dir);
    make_elf_files(dir);
  });
  return dir;
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

/// `word` with the corpus placeholders expanded (tests/bad_inputs/README.md).
std::string expand(std::string w, const std::string& out) {
  const std::map<std::string, std::string> vars = {
      {"{k}", kCorpus + "/kernels"},
      {"{py}", kCorpus + "/py"},
      {"{libs}", kCorpus + "/libs"},
      {"{csv}", kCorpus + "/csv"},
      {"{gen}", generated()},
      {"{data}", KPROF_TEST_DATA},
      {"{ex}", KPROF_EXAMPLES_DIR},
      {"{vadd}", std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/vector_add.cu"},
      {"{ref}", std::string(KPROF_EXAMPLES_DIR) + "/cuda/vector_add/ref.py"},
      {"{readme}", std::string(KPROF_SOURCE_DIR) + "/README.md"},
      {"{out}", out}};
  for (const auto& [key, value] : vars)
    for (size_t at; (at = w.find(key)) != std::string::npos;) w.replace(at, key.size(), value);
  for (const char* gen : {"{nest:", "{minus:", "{sum:"}) {
    size_t at = w.find(gen);
    if (at == std::string::npos) continue;
    size_t end = w.find('}', at);
    size_t n = std::stoul(w.substr(at + std::string(gen).size(), end - at - std::string(gen).size()));
    std::string text = std::string(gen) == "{nest:"    ? repeat("(", n) + "1" + repeat(")", n)
                       : std::string(gen) == "{minus:" ? repeat("-", n)
                                                       : "1" + repeat("+1", n / 2);
    w.replace(at, end + 1 - at, text);
  }
  return w;
}

class Corpus : public ::testing::TestWithParam<Case> {};

TEST_P(Corpus, Case) {
  const Case& c = GetParam();
  if (c.name.rfind("so_elf_", 0) == 0 && !elf_check_available())
    GTEST_SKIP() << "kprof was built without libelf: a library is then checked only when it is loaded";
  if (c.name.find("ncu_report") != std::string::npos) KPROF_REQUIRE_NCU_REPORT();  // reads through the module
  const std::string out = generated() + "/out_" + c.name;
  std::vector<std::string> argv = {KPROF_BINARY};
  for (const auto& w : split(c.args, ' '))
    if (!w.empty()) argv.push_back(expand(w, out));
  ProcessOptions o;
  o.timeout_s = 120;
  o.env["KPROF_COLOR"] = "never";
  o.env["KPROF_CACHE_DIR"] = generated() + "/cache";
  for (const auto& kv : split(c.env, ';'))
    if (auto eq = kv.find('='); eq != std::string::npos) o.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  ProcessResult r = run_process(argv, o);
  EXPECT_EQ(r.term_signal, 0) << "kprof crashed: " << shell_join(argv) << "\n" << r.combined();
  EXPECT_EQ(r.exit_code, c.exit_code) << shell_join(argv) << "\n" << r.combined();
  EXPECT_NE(r.combined().find(c.fragment), std::string::npos)
      << "expected \"" << c.fragment << "\" in the output of " << shell_join(argv) << "\n"
      << r.combined();
  if (c.exit_code == 2)
    EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;  // every input error says what to do
}

INSTANTIATE_TEST_SUITE_P(BadInputs, Corpus, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(BadInputsCorpus, HasAtLeastSixtyCasesOverEveryKind) {
  auto cases = load_cases();
  EXPECT_GE(cases.size(), 60u);
  for (const char* kind : {"sig_", "size_", "so_", "py_", "opt_", "an_"})
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const Case& c) { return c.name.rfind(kind, 0) == 0; }))
        << kind;
}

}  // namespace
