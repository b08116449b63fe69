// The one Python probe of `kprof env`: parsing its lines, running it for real, time limits.
#include <gtest/gtest.h>

#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "stages/env/python_probe.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(PythonProbe, ParsesItemLinesAndIgnoresNoise) {
  const std::string out =
      "some warning printed by an import\n"
      "KPROF_PROBE {\"version\": \"3.12.3\", \"executable\": \"/venv/bin/python\", \"key\": \"python\"}\n"
      "KPROF_PROBE {\"importable\": true, \"version\": \"2.8.0+cu128\", \"cuda_build\": \"12.8\", "
      "\"cuda_available\": true, \"device\": \"NVIDIA H200\", \"key\": \"torch\"}\n"
      "KPROF_PROBE {\"importable\": false, \"error\": \"ModuleNotFoundError: No module named 'triton'\", \"key\": "
      "\"triton\"}\n"
      "KPROF_PROBE {not json}\n"
      "KPROF_PROBE {\"importable\": true, \"version\": \"4.2.1\", \"key\": \"cute_dsl\"}\n"
      "KPROF_PROBE {\"source\": \"/venv/site-packages/cutlass_library/source\", \"version\": \"4.2.0.0\", \"key\": "
      "\"cutlass_pip\"}\n";
  PythonInfo p = parse_python_probe(out);
  EXPECT_TRUE(p.ran);
  EXPECT_EQ(p.version, "3.12.3");
  EXPECT_EQ(p.path, "/venv/bin/python");
  EXPECT_TRUE(p.torch.importable);
  EXPECT_EQ(p.torch.version, "2.8.0+cu128");
  EXPECT_EQ(p.torch.cuda_build, "12.8");
  EXPECT_TRUE(p.torch.cuda_available);
  EXPECT_EQ(p.torch.device, "NVIDIA H200");
  EXPECT_TRUE(p.language(Implementation::Triton).probed);
  EXPECT_FALSE(p.language(Implementation::Triton).importable);
  EXPECT_NE(p.language(Implementation::Triton).error.find("triton"), std::string::npos);
  EXPECT_TRUE(p.language(Implementation::CuteDsl).importable);
  EXPECT_EQ(p.language(Implementation::CuteDsl).version, "4.2.1");
  EXPECT_FALSE(p.nsight_python.probed);  // never reached
  EXPECT_EQ(p.cutlass_pip_source, "/venv/site-packages/cutlass_library/source");
  EXPECT_EQ(p.cutlass_pip_version, "4.2.0.0");
}

TEST(PythonProbe, CpuOnlyTorchHasNoCudaBuild) {
  PythonInfo p = parse_python_probe(
      "KPROF_PROBE {\"importable\": true, \"version\": \"2.8.0+cpu\", \"cuda_build\": null, \"cuda_available\": false, "
      "\"key\": \"torch\"}\n");
  EXPECT_TRUE(p.torch.importable);
  EXPECT_TRUE(p.torch.cuda_build.empty());
  EXPECT_FALSE(p.torch.cuda_available);
}

TEST(PythonProbe, RunsTheRealInterpreter) {
  std::string py = python_executable();
  ProcessResult ref = run_process({py, "-c", "import sys; print(sys.version.split()[0])"});
  if (!ref.ok()) GTEST_SKIP() << "the embedded Python cannot run here: " << ref.err;
  PythonInfo p = probe_python(120);
  EXPECT_TRUE(p.ran);
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.version, trim(ref.out));
  // Every package was reached and is either importable with a version, or has an error line.
  const std::vector<const PyPackage*> pkgs = {&p.torch, &p.language(Implementation::Triton),
                                              &p.language(Implementation::CuteDsl), &p.nsight_python};
  for (const PyPackage* pkg : pkgs) {
    EXPECT_TRUE(pkg->probed);
    if (!pkg->importable) EXPECT_FALSE(pkg->error.empty());
  }
  ProcessResult torch = run_process({py, "-c", "import torch"}, {});
  EXPECT_EQ(p.torch.importable, torch.ok());
}

TEST(PythonProbe, KprofPythonOverridesTheInterpreter) {
  // Any existing executable path is taken as given (python/interpreter.hpp validates existence).
  ScopedEnv e("KPROF_PYTHON", "/usr/bin/env");
  EXPECT_EQ(python_executable(), "/usr/bin/env");
}

TEST(PythonProbe, MissingInterpreterIsAnErrorLine) {
  PythonInfo p = probe_python(5, "/nonexistent/python3");
  EXPECT_FALSE(p.ran);
  EXPECT_NE(p.error.find("/nonexistent/python3"), std::string::npos) << p.error;
}

TEST(PythonProbe, HangingImportIsStoppedAndEarlierItemsKept) {
  TempDir d;
  // A fake interpreter: reports Python and torch, then hangs as a stuck import would.
  write(d / "python",
        "#!/bin/sh\n"
        "echo 'KPROF_PROBE {\"version\": \"3.11.0\", \"executable\": \"/fake/python\", \"key\": \"python\"}'\n"
        "echo 'KPROF_PROBE {\"importable\": true, \"version\": \"2.8.0\", \"cuda_build\": \"12.8\", "
        "\"cuda_available\": false, \"key\": \"torch\"}'\n"
        "sleep 60\n",
        true);
  auto t0 = std::chrono::steady_clock::now();
  PythonInfo p = probe_python(1.0, d / "python");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 10.0);
  EXPECT_TRUE(p.ran);
  EXPECT_TRUE(p.torch.importable);
  EXPECT_FALSE(p.language(Implementation::Triton).probed);
  EXPECT_NE(p.error.find("time limit"), std::string::npos) << p.error;
}

TEST(PythonProbe, FindsTheNvidiaCutlassPackageLayout) {
  std::string py = python_executable();
  if (!run_process({py, "-c", "pass"}).ok()) GTEST_SKIP() << "the embedded Python cannot run here";
  TempDir d;
  // The layout the nvidia-cutlass wheel installs: cutlass_library/source/include/cutlass/...
  write(d / "site/cutlass_library/__init__.py", "");
  write(d / "site/cutlass_library/source/include/cutlass/cutlass.h", "// fake\n");
  ScopedEnv pp("PYTHONPATH", d / "site");
  PythonInfo p = probe_python(60);
  EXPECT_EQ(p.cutlass_pip_source, d / "site/cutlass_library/source");
}
