// ref.py's optional flops(**dims) / bytes_moved(**dims) (stages/verify/work_model.hpp) in the embedded
// Python, and the work model of a profile built from them (flows/assess_context.hpp).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "stages/verify/reference_loader.hpp"
#include "stages/verify/work_model.hpp"
#include "unit/test_env_util.hpp"

using namespace kprof;
using namespace kprof::testutil;

TEST(WorkModelPy, DeclaredFlopsAndBytesAreCalledWithTheDims) {
  TempDir dir;
  write(dir / "ref.py",
        "def reference(A, B, C, **kw):\n    pass\n\n"
        "def flops(M, N, K, **kw):\n    return 2 * M * N * K\n\n"
        "def bytes_moved(M, N, K, alpha, **kw):\n    assert isinstance(M, int) and isinstance(alpha, float)\n"
        "    return 2 * (M * K + K * N + M * N)\n");
  ASSERT_TRUE(declares_work(dir / "ref.py"));
  DeclaredWork w = declared_work(dir / "ref.py", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, {{"alpha", 0.5}});
  ASSERT_TRUE(w.flops);
  EXPECT_DOUBLE_EQ(*w.flops, 2.0 * 4096 * 4096 * 4096);
  ASSERT_TRUE(w.bytes);
  EXPECT_DOUBLE_EQ(*w.bytes, 2.0 * 3 * 4096 * 4096);
  EXPECT_NE(w.flops_how.find("ref.py flops(K=4096, M=4096, N=4096, alpha=0.5)"), std::string::npos) << w.flops_how;
}

TEST(WorkModelPy, AReferenceWithoutThemIsNotImportedAgain) {
  TempDir dir;
  write(dir / "ref.py", "raise RuntimeError('must not run')\ndef reference(**kw):\n    pass\n");
  EXPECT_FALSE(declares_work(dir / "ref.py"));
  DeclaredWork w = declared_work(dir / "ref.py", {{"N", 8}}, {});
  EXPECT_FALSE(w.flops);
  EXPECT_FALSE(w.bytes);
}

TEST(WorkModelPy, ARaisingOrNonNumericDeclarationIsAUsageError) {
  TempDir dir;
  write(dir / "raise.py", "def reference(**kw):\n    pass\ndef flops(N, **kw):\n    return 1 / 0\n");
  try {
    declared_work(dir / "raise.py", {{"N", 8}}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("ZeroDivisionError"), std::string::npos) << e.what();
  }
  write(dir / "text.py", "def reference(**kw):\n    pass\ndef bytes_moved(N, **kw):\n    return 'many'\n");
  EXPECT_THROW(declared_work(dir / "text.py", {{"N", 8}}, {}), Error);
}

TEST(WorkModelPy, RefPyIsImportedOncePerProcessByTheCheckAndTheWorkModel) {
  TempDir dir;
  // Module-level code counts its own imports in a file beside it.
  const std::string counting =
      "open(__file__ + '.imports', 'a').write('x')\n"
      "def reference(**kw):\n    pass\n"
      "def flops(N, **kw):\n    return 2 * N\n";
  write(dir / "ref.py", counting);
  BackgroundReference check_ref(dir / "ref.py", 0);  // how `kprof run` / `kprof check` load it
  EXPECT_EQ(check_ref.get().origin(), dir / "ref.py");
  DeclaredWork w = declared_work(dir / "ref.py", {{"N", 8}}, {});  // the profile's work model
  ASSERT_TRUE(w.flops);
  EXPECT_DOUBLE_EQ(*w.flops, 16.0);
  // More versions: another check load and another work model, still the one import.
  load_reference(dir / "ref.py", 0);
  ASSERT_TRUE(declared_work(dir / "ref.py", {{"N", 4}}, {}).flops);
  EXPECT_EQ(read_file_or_empty(dir / "ref.py.imports"), "x") << "ref.py was imported more than once";
  // An edited ref.py is imported again (never run stale), and its new work is used.
  write(dir / "ref.py", counting + "def bytes_moved(N, **kw):\n    return 4 * N\n");
  DeclaredWork edited = declared_work(dir / "ref.py", {{"N", 8}}, {});
  ASSERT_TRUE(edited.bytes);
  EXPECT_DOUBLE_EQ(*edited.bytes, 32.0);
  EXPECT_EQ(read_file_or_empty(dir / "ref.py.imports"), "xx");
}
