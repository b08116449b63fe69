// The language catalog (core/implementation.hpp): a pretend language, Helion (a Python module, like
// triton), added as one row with ScopedLanguageRow, is parsed by --implementation's parser, probed
// by env, judged by readiness, shown in env_check.md / env_check.json, its library files are
// library lines in the hot lines and its generated kernels library kernels for the sanitizer.
// Nothing else is written for it: a new language is one row plus, for a new file kind, its loader.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/implementation.hpp"
#include "report/env_report.hpp"
#include "report/hot_lines_report.hpp"
#include "stages/analysis/hot_lines.hpp"
#include "stages/env/python_probe.hpp"
#include "stages/env/readiness.hpp"
#include "stages/verify/sanitizer.hpp"

using namespace kprof;

namespace {

constexpr auto kHelion = static_cast<Implementation>(100);

LanguageRow helion_row() {
  LanguageRow r;
  r.impl = kHelion;
  r.name = "helion";
  r.display = "Helion";
  r.aliases = {"pytorch-helion"};
  r.file = FileKind::PythonModule;
  r.modules = {"torch", "helion"};
  r.probe_module = "helion";
  r.probe_key = "helion";
  r.distribution = "helion";
  r.pip_hint = "pip install helion";
  r.library_markers = {"/site-packages/helion/"};
  r.kernel_prefixes = {"helion_"};
  return r;
}

}  // namespace

TEST(LanguageRows, TheFourSeedLanguagesInOrder) {
  EXPECT_EQ(language_names(), "cuda-cpp, cutlass, triton, cute-dsl");
  EXPECT_EQ(language_names_of(FileKind::PythonModule), "triton or cute-dsl");
  EXPECT_EQ(language_names_of(FileKind::CudaSource), "cuda-cpp or cutlass");
  for (const auto& r : language_rows()) {
    EXPECT_EQ(parse_implementation(r.name), r.impl);
    for (const auto& a : r.aliases) EXPECT_EQ(parse_implementation(a), r.impl) << a;
    EXPECT_EQ(is_python_impl(r.impl), r.file == FileKind::PythonModule);
    EXPECT_EQ(r.probe_module.empty(), r.probe_key.empty()) << r.name;
  }
  EXPECT_THROW(language_row(kHelion), Error);
}

TEST(LanguageRows, AFakeRowIsParsedAndResolved) {
  {
    ScopedLanguageRow helion(helion_row());
    EXPECT_EQ(parse_implementation("Helion"), kHelion);
    EXPECT_EQ(parse_implementation("pytorch-helion"), kHelion);
    EXPECT_EQ(resolve_implementation("helion", "k.py"), kHelion);
    EXPECT_THROW(resolve_implementation("helion", "k.cu"), Error);
    EXPECT_TRUE(is_python_impl(kHelion));
    EXPECT_EQ(shared_python_modules(kHelion), (std::vector<std::string>{"torch", "helion"}));
    EXPECT_EQ(language_names_of(FileKind::PythonModule), "triton or cute-dsl or helion");
    EXPECT_NE(python_probe_script().find("\"helion\""), std::string::npos);  // env imports it
  }
  EXPECT_THROW(parse_implementation("helion"), Error);  // gone with its row
}

TEST(LanguageRows, AFakeRowDrivesEnvReadinessAndTheReports) {
  ScopedLanguageRow helion(helion_row());
  // env: the probe's line for the row's key is read into the language's package.
  PythonInfo p = parse_python_probe(
      "KPROF_PROBE {\"key\": \"python\", \"version\": \"3.12.3\", \"executable\": \"/usr/bin/python3\"}\n"
      "KPROF_PROBE {\"key\": \"torch\", \"importable\": true, \"version\": \"2.8.0\"}\n"
      "KPROF_PROBE {\"key\": \"helion\", \"importable\": true, \"version\": \"0.2.1\"}\n"
      "KPROF_PROBE {\"key\": \"triton\", \"importable\": false, \"error\": \"ModuleNotFoundError: No module named "
      "'triton'\"}\n");
  EXPECT_TRUE(p.language(kHelion).importable);
  EXPECT_EQ(p.language(kHelion).version, "0.2.1");
  // readiness: one implementation row and one package item for it.
  EnvFacts f;
  f.python = p;
  EnvReport r = assess_env(f);
  bool ready = false, listed = false;
  for (const auto& i : r.implementations)
    if (i.impl == kHelion) {
      listed = true;
      ready = i.ready;
      EXPECT_EQ(i.requirement, "importable helion Python package");
      EXPECT_EQ(i.detail, "helion 0.2.1");
    }
  EXPECT_TRUE(listed);
  EXPECT_TRUE(ready);
  bool item = false;
  for (const auto& it : r.items)
    if (it.name == "Helion") {
      item = true;
      EXPECT_EQ(it.status, ItemStatus::Ok);
      EXPECT_EQ(it.value, "0.2.1");
    }
  EXPECT_TRUE(item);
  // the reports: env_check.md's package table and implementation table, env_check.json's python key.
  std::string md = env_markdown(r);
  EXPECT_NE(md.find("| helion |"), std::string::npos) << md;
  nlohmann::json j = env_json(r);
  EXPECT_EQ(j["python"]["helion"]["version"], "0.2.1");
  EXPECT_EQ(j["python"]["helion"]["importable"], true);
  EXPECT_EQ(j["python"]["triton"]["importable"], false);  // the seed's keys stay
}

TEST(LanguageRows, AFakeRowsLibraryIsLibraryInHotLinesAndTheSanitizer) {
  EXPECT_FALSE(is_library_source("/venv/lib/python3.12/site-packages/helion/runtime/kernel.py"));
  EXPECT_FALSE(is_library_kernel("helion_matmul_kernel", false));
  ScopedLanguageRow helion(helion_row());
  EXPECT_TRUE(is_library_source("/venv/lib/python3.12/site-packages/helion/runtime/kernel.py"));
  EXPECT_TRUE(is_library_kernel("helion_matmul_kernel", false));
  EXPECT_TRUE(is_library_source("/usr/lib/python3/dist-packages/triton/language/core.py"));  // the seed's rows stay

  // A kernel whose hottest line is in Helion's runtime: the hot line is a library line led to
  // by the user's line before it.
  NcuRepKernel k;
  k.id = 0;
  k.function = "helion_matmul_kernel";
  auto ins = [](uint64_t pc, const std::string& file, int line, double samples) {
    NcuRepInstruction i;
    i.pc = pc;
    i.file = file;
    i.line = line;
    i.sass = "FFMA R1, R2, R3, R4";
    i.counters[srcmetric::kSamples] = samples;
    i.counters[srcmetric::kInst] = 10;
    return i;
  };
  k.instructions = {ins(0x10, "/home/me/matmul.py", 12, 5),
                    ins(0x20, "/venv/lib/python3.12/site-packages/helion/runtime/kernel.py", 40, 95)};
  KernelHotLines h = hot_lines(k);
  ASSERT_FALSE(h.lines.empty());
  EXPECT_TRUE(h.lines[0].library);
  ASSERT_TRUE(h.lines[0].via.has_value());
  EXPECT_EQ(h.lines[0].via->file, "/home/me/matmul.py");
  EXPECT_EQ(h.lines[0].via->line, 12);
  EXPECT_NE(hot_lines_markdown(h, 3, false).find("(library"), std::string::npos);
  EXPECT_EQ(hot_lines_json(h)["lines"][0]["library"], true);
}
